//go:build windows

package jail_windows

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLookPath(t *testing.T) {
	root := testenv.TempDir(t)
	shims, bin, other := filepath.Join(root, "shims"), filepath.Join(root, "bin"), filepath.Join(root, "other")
	touch(t, filepath.Join(shims, "git.exe"), filepath.Join(bin, "git.exe"), filepath.Join(bin, "npm.cmd"),
		filepath.Join(bin, "tool.bat"), filepath.Join(other, "tool.exe"), filepath.Join(bin, "py3.11.exe"),
		filepath.Join(bin, "noext"), filepath.Join(root, "proj", "run.cmd"), filepath.Join(root, "here.exe"))
	if err := os.Mkdir(filepath.Join(bin, "dir.exe"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + strings.Join([]string{shims, `"` + bin + `"`, "", other}, ";")
	for _, tc := range []struct {
		name, cmd string
		env       []string
		want      string // "" wants ErrNotFound
	}{
		{"shim dir first", "git", []string{path}, filepath.Join(shims, "git.exe")},
		{"Path spelled as Windows does", "git", []string{"Path=" + bin}, filepath.Join(bin, "git.exe")},
		{"last PATH wins", "git", []string{"PATH=" + shims, "path=" + bin}, filepath.Join(bin, "git.exe")},
		{"quoted entry and .cmd", "npm", []string{path}, filepath.Join(bin, "npm.cmd")},
		{"an earlier PATH entry wins", "tool", []string{path}, filepath.Join(bin, "tool.bat")},
		{"PATHEXT narrowed", "tool", []string{path, "PATHEXT=.EXE"}, filepath.Join(other, "tool.exe")},
		{"PATHEXT without dots", "tool", []string{path, "PATHEXT=exe"}, filepath.Join(other, "tool.exe")},
		{"PATHEXT by association only", "tool", []string{path, "PATHEXT=.JS;.EXE"}, filepath.Join(other, "tool.exe")},
		{"explicit extension", "tool.bat", []string{path}, filepath.Join(bin, "tool.bat")},
		{"dotted name", "py3.11", []string{path}, filepath.Join(bin, "py3.11.exe")},
		{"no extension is not executable", "noext", []string{path}, ""},
		{"directories are not commands", "dir", []string{path, "PATHEXT=.EXE"}, ""},
		{"current directory not searched", "here", []string{path}, ""},
		{"relative with a directory", `proj\run`, []string{path}, filepath.Join(root, "proj", "run.cmd")},
		{"slash form", "proj/run.cmd", []string{path}, filepath.Join(root, "proj", "run.cmd")},
		{"absolute", filepath.Join(bin, "git"), nil, filepath.Join(bin, "git.exe")},
		{"missing", "nothing", []string{path}, ""},
		{"empty PATH", "git", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lookPath(tc.cmd, tc.env, root)
			if tc.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("lookPath(%q) = %q, %v; want ErrNotFound", tc.cmd, got, err)
				}
				return
			}
			if err != nil || !strings.EqualFold(got, tc.want) {
				t.Fatalf("lookPath(%q) = %q, %v; want %q", tc.cmd, got, err, tc.want)
			}
		})
	}
}
