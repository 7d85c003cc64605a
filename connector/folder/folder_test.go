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

// An agent's worktree keeps its placeholders in MAIN's stash, which every
// worktree of the repository shares; any other folder, or a worktree
// whose MAIN/.sandbox is not a directory (a link), keeps its own.
func TestPinStash(t *testing.T) {
	main := t.TempDir()
	wt := Folder{Root: filepath.Join(main, DirName, "worktrees", "a")}
	if err := os.MkdirAll(wt.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := wt.PinStash(), filepath.Join(main, DirName, "pins"); got != want {
		t.Errorf("agent worktree: %s, want MAIN's %s", got, want)
	}
	if got, want := (Folder{Root: main}).PinStash(), filepath.Join(main, DirName, "pins"); got != want {
		t.Errorf("MAIN: %s, want %s", got, want)
	}
	other := Folder{Root: filepath.Join(main, "worktrees", "a")} // not inside .sandbox
	if got, want := other.PinStash(), filepath.Join(other.Root, DirName, "pins"); got != want {
		t.Errorf("a folder named like a worktree: %s, want its own %s", got, want)
	}

	linked := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.MkdirAll(filepath.Join(elsewhere, "worktrees", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(linked, DirName)); err != nil {
		t.Fatal(err)
	}
	lw := Folder{Root: filepath.Join(linked, DirName, "worktrees", "b")}
	if got, want := lw.PinStash(), filepath.Join(lw.Root, DirName, "pins"); got != want {
		t.Errorf("MAIN/.sandbox a link: %s, want the worktree's own %s", got, want)
	}
}
