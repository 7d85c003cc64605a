//go:build windows

package shims

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func TestWindowsLookRealPATHEXT(t *testing.T) {
	root := testenv.TempDir(t)
	shimDir, node, git, sys := filepath.Join(root, "shims"), filepath.Join(root, "nodejs"),
		filepath.Join(root, "Git", "cmd"), filepath.Join(root, "System32")
	for _, f := range []string{filepath.Join(shimDir, "npm.exe"), filepath.Join(shimDir, "git.exe"),
		filepath.Join(node, "npm"), filepath.Join(node, "npm.cmd"), filepath.Join(node, "npm.ps1"),
		filepath.Join(git, "git.exe"), filepath.Join(sys, "curl.exe"), filepath.Join(sys, "tool.bat"),
		filepath.Join(node, "tool.com")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(shimDir)
	if err != nil {
		t.Fatal(err)
	}
	s := &site{dir: shimDir, dirFI: fi, self: selfInfo()}
	path := []string{strings.ToUpper(shimDir), shimDir, node, git, sys}
	for _, tc := range []struct {
		name, pathext, want string
	}{
		{"npm", "", filepath.Join(node, "npm.cmd")},
		{"npm", ".COM;.EXE;.BAT;.CMD;.VBS;.JS;.PS1", filepath.Join(node, "npm.cmd")},
		{"npm", ".PS1;.CMD", filepath.Join(node, "npm.cmd")},
		{"npm", ".PS1", filepath.Join(node, "npm.cmd")},
		{"npm", ".EXE", ""},
		{"git", "", filepath.Join(git, "git.exe")},
		{"curl", "", filepath.Join(sys, "curl.exe")},
		{"tool", "", filepath.Join(node, "tool.com")},
		{"tool", ".BAT", filepath.Join(sys, "tool.bat")},
		{"missing", "", ""},
	} {
		t.Run(tc.name+" "+tc.pathext, func(t *testing.T) {
			t.Setenv("PATHEXT", tc.pathext)
			got, err := s.lookReal(tc.name, path)
			if tc.want == "" {
				if err != ErrNotFound {
					t.Fatalf("lookReal(%s) = %q, %v; want ErrNotFound", tc.name, got, err)
				}
				return
			}
			if err != nil || !strings.EqualFold(got, tc.want) {
				t.Fatalf("lookReal(%s) = %q, %v; want %q (never the shim dir)", tc.name, got, err, tc.want)
			}
		})
	}
}
