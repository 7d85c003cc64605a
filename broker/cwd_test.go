//go:build unix

package broker_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
)

func TestRunChecksTheWorkingDirectory(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root + "/sub/deep", outside, root + "-evil"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
	os.Symlink(outside, filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "inner"))
	os.Symlink(root, filepath.Join(base, "rootlink"))
	tests := []struct {
		name, root, dir string
		want            string // the real working directory, or "" when refused
	}{
		{"default is root", root, "", root},
		{"relative", root, "sub/deep", root + "/sub/deep"},
		{"absolute inside", root, root + "/sub", root + "/sub"},
		{"link inside to inside", root, root + "/inner", root + "/sub"},
		{"root given through a link", filepath.Join(base, "rootlink"), root + "/sub", root + "/sub"},
		{"outside", root, outside, ""},
		{"string prefix is not containment", root, root + "-evil", ""},
		{"dotdot", root, "sub/../..", ""},
		{"link inside to outside", root, root + "/escape", ""},
		{"missing", root, root + "/nope", ""},
		{"a file", root, root + "/file", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oc, err := run(t, broker.Spec{Root: tc.root, Dir: tc.dir, Argv: []string{"pwd", "-P"}})
			if tc.want == "" {
				if !errors.Is(err, broker.ErrCwd) || !oc.Started.IsZero() {
					t.Fatalf("err %v started %v, want ErrCwd", err, oc.Started)
				}
				return
			}
			if err != nil || oc.Stdout != tc.want+"\n" {
				t.Errorf("err %v pwd %q, want %q", err, oc.Stdout, tc.want)
			}
		})
	}
}

// TestRunRelativeProgramIsRelativeToTheCheckedDir: "./x" means the x in
// the working directory that was checked.
func TestRunRelativeProgramIsRelativeToTheCheckedDir(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "sub", "x"), []byte("#!/bin/sh\necho from-sub\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	oc := mustRun(t, broker.Spec{Root: root, Dir: "sub", Argv: []string{"./x"}})
	if oc.Stdout != "from-sub\n" {
		t.Errorf("stdout %q", oc.Stdout)
	}
}
