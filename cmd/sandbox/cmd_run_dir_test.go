package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// TestRunStartsInCurrentDir: sandbox run starts the command in the current
// directory when it is inside the project (on every OS: Windows paths have
// no "/"), and at the project root otherwise.
func TestRunStartsInCurrentDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", testenv.TempDir(t))
	root := realTempDir(t)
	sub := filepath.Join(root, "src", "pkg")
	evil := root + "-evil"
	for _, d := range []string{filepath.Join(root, ".sandbox"), sub, evil} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ name, wd, want string }{
		{"root", root, root},
		{"subdirectory", sub, sub},
		{"sibling with the root as prefix", evil, root},
		{"outside", filepath.Dir(root), root},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.wd)
			opts := &runOptions{dir: dirFlag{dir: root}, argv: []string{"true"}}
			lo, err := opts.launcherOptions()
			if err != nil {
				t.Fatal(err)
			}
			got := lo.Dir
			if got == "" {
				got = root // the launcher's default
			}
			if got != tc.want {
				t.Fatalf("Dir = %q, want %q", got, tc.want)
			}
		})
	}
}

// realTempDir is testenv.TempDir with its symlinks resolved (macOS /var,
// 8.3 names on Windows), as folder.New resolves the project root.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(testenv.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
