package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// policyProject is a project with .sandbox/policy.yaml holding src, and a
// per-user state in a temp dir; nothing accepted yet.
func policyProject(t *testing.T, src string) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, folder.DirName), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, folder.DirName, "policy.yaml"), src)
	return root
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPolicyCLI(t *testing.T) {
	root := policyProject(t, string(policy.DefaultYAML()))
	pol := filepath.Join(root, folder.DirName, "policy.yaml")
	steps := []struct {
		name string
		args []string
		code int
		want string // in stdout+stderr
	}{
		{"show nothing", []string{"policy", "show", "--dir", root}, 0, "No policy has been accepted"},
		{"diff from nothing", []string{"policy", "diff", "--dir", root}, 0, "+version: 1"},
		{"check before accept", []string{"check", "--dir", root, "--cwd", root, "--write", "a.go"}, 10, "everything escalates"},
		{"accept needs a terminal", []string{"policy", "accept", "--dir", root}, 1, "stdin is not a terminal"},
		{"accept --yes", []string{"policy", "accept", "--dir", root, "--yes"}, 0, "Accepted for"},
		{"accept again", []string{"policy", "accept", "--dir", root, "--yes"}, 0, "Already accepted"},
		{"diff none", []string{"policy", "diff", "--dir", root}, 0, "No pending change"},
		{"show", []string{"policy", "show", "--dir", root}, 0, "version: 1"},
		{"check after accept", []string{"check", "--dir", root, "--cwd", root, "--write", "a.go"}, 0, "allow"},
	}
	for _, s := range steps {
		code, out, errw := runCLI(t, s.args...)
		if code != s.code || !strings.Contains(out+errw, s.want) {
			t.Fatalf("%s: code %d, want %d; output does not contain %q:\n%s%s", s.name, code, s.code, s.want, out, errw)
		}
	}

	// A change that allows more is pending until accepted.
	writeFile(t, pol, string(policy.DefaultYAML())+"# edited\n")
	code, out, errw := runCLI(t, "policy", "diff", "--dir", root)
	if code != 0 || !strings.Contains(out, "+# edited") {
		t.Fatalf("diff: %d\n%s%s", code, out, errw)
	}
	if code, out, errw = runCLI(t, "policy", "show", "--dir", root); !strings.Contains(errw, "not accepted") {
		t.Errorf("show does not note the pending change: %d\n%s%s", code, out, errw)
	}

	// A broken file is refused with file:line and the accepted one stays.
	writeFile(t, pol, "version: 1\nwrite: {allow: ['/**']}\nbogus: true\n")
	code, out, errw = runCLI(t, "policy", "accept", "--dir", root, "--yes")
	if code != 1 || !strings.Contains(errw, "policy.yaml:3: unknown key") {
		t.Errorf("accept of a broken file: %d\n%s%s", code, out, errw)
	}
	code, out, errw = runCLI(t, "check", "--dir", root, "--write", "/etc/x")
	if code != 10 || !strings.Contains(errw, "policy.yaml:3") {
		t.Errorf("check with a broken file: %d\n%s%s", code, out, errw)
	}
}
