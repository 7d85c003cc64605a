package folder

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFind(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(root, "proj")
	mkdirs(t, filepath.Join(proj, DirName), filepath.Join(proj, "a", "b"), filepath.Join(root, "other"))
	if err := os.Symlink(filepath.Join(proj, "a"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, start, want string
		err               error
	}{
		{"at the root", proj, proj, nil},
		{"from a subdirectory", filepath.Join(proj, "a", "b"), proj, nil},
		{"through a symlink", filepath.Join(root, "link", "b"), proj, nil},
		{"none upward", filepath.Join(root, "other"), "", ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Find(tc.start)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Find(%s) error = %v, want %v", tc.start, err, tc.err)
			}
			if f.Root != tc.want {
				t.Fatalf("Find(%s) = %q, want %q", tc.start, f.Root, tc.want)
			}
		})
	}
}

func TestFindIgnoresSandboxSymlink(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	real := filepath.Join(root, "elsewhere")
	proj := filepath.Join(root, "proj")
	mkdirs(t, real, proj)
	if err := os.Symlink(real, filepath.Join(proj, DirName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(proj); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a .sandbox symlink was accepted: %v", err)
	}
}

func TestResolve(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(root, "proj")
	bare := filepath.Join(root, "bare")
	mkdirs(t, filepath.Join(proj, DirName), filepath.Join(proj, "sub"), bare)
	t.Chdir(filepath.Join(proj, "sub"))
	tests := []struct {
		name, flag string
		args       []string
		want       string
		err        error
	}{
		{"flag wins", proj, []string{bare}, proj, nil},
		{"positional", "", []string{proj}, proj, nil},
		{"upward from cwd", "", nil, proj, nil},
		{"explicit folder without .sandbox", bare, nil, "", ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Resolve(tc.flag, tc.args)
			if !errors.Is(err, tc.err) || f.Root != tc.want {
				t.Fatalf("Resolve = %q, %v; want %q, %v", f.Root, err, tc.want, tc.err)
			}
		})
	}
}

func TestNewRejectsFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(p); err == nil {
		t.Fatal("New accepted a regular file")
	}
}
