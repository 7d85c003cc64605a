package shims

import (
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAllowExecsTheRealToolNeverItself(t *testing.T) {
	fx := newFixture(t, testPolicy)
	base := filepath.Dir(fx.f.Root)
	link := filepath.Join(base, "shims-link")
	if err := os.Symlink(fx.shimDir, link); err != nil {
		t.Fatal(err)
	}
	// A hard link of this binary named git elsewhere on PATH: the same
	// file under another directory.
	other := filepath.Join(base, "other")
	mkdir(t, other)
	exe, _ := os.Executable()
	if err := os.Link(exe, filepath.Join(other, "git")); err != nil {
		testenv.Skip(t, "no hard links here: "+err.Error())
	}
	// A relative PATH entry whose git must not run.
	writeExec(t, filepath.Join(fx.f.Root, "git"), "#!/bin/sh\necho PLANTED\n")
	tests := []struct {
		name string
		path []string
	}{
		{"shim dir first", []string{fx.shimDir, fx.realDir}},
		{"shim dir twice", []string{fx.shimDir, fx.shimDir, fx.realDir}},
		{"symlinked shim dir on PATH", []string{link, fx.shimDir, link, fx.realDir}},
		{"only the symlink", []string{link, fx.realDir}},
		{"shim dir spelled with a trailing slash and dots", []string{fx.shimDir + "/", fx.shimDir + "/./", fx.realDir}},
		{"this binary elsewhere on PATH", []string{fx.shimDir, other, fx.realDir}},
		{"relative entries skipped", []string{fx.shimDir, ".", "", fx.realDir}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, fx.shim(strings.Join(tc.path, ":"), nil, "status", "a; rm -rf / #"))
			if code != 0 || out != "REAL git status [a; rm -rf / #]\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}

func TestAllowWithoutARealToolFails127(t *testing.T) {
	fx := newFixture(t, testPolicy)
	out, errOut, code := run(t, fx.shim(fx.shimDir+":"+fx.shimDir, nil, "status"))
	if code != ExitNotFound || !strings.Contains(errOut, "not on PATH") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestShimCalledByPath(t *testing.T) {
	fx := newFixture(t, testPolicy)
	cmd := fx.shim(fx.realDir, nil, "status")
	cmd.Args[0] = filepath.Join(fx.shimDir, "git")
	if out, errOut, code := run(t, cmd); code != 0 || !strings.HasPrefix(out, "REAL git status") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestDenyExits126(t *testing.T) {
	fx := newFixture(t, testPolicy)
	out, errOut, code := run(t, fx.shim(fx.shimDir+":"+fx.realDir, nil, "push", "--force", "origin", "main"))
	if code != ExitRefused || out != "" || !strings.Contains(errOut, "is denied by the policy") || !strings.Contains(errOut, "no forced pushes") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if reqs, _ := fx.q.Pending(); len(reqs) != 0 {
		t.Errorf("a denied call made %d requests", len(reqs))
	}
}

func TestSelfDispatch(t *testing.T) {
	tests := []struct {
		argv0, extra string
		want         bool
	}{
		{"git", "", true},
		{"/p/.sandbox/shims/git", "", true},
		{`C:\p\shims\git.exe`, "", true},
		{"sandbox", "", false},
		{"/usr/local/bin/sandbox", "git,sandbox", false},
		{"make", "", false},
		{"make", "cargo,make", true},
		{"shims.test", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.argv0, func(t *testing.T) {
			t.Setenv(EnvNames, tc.extra)
			if got := isShim(commandName(tc.argv0)); got != tc.want {
				t.Errorf("isShim(%q) = %v", tc.argv0, got)
			}
		})
	}
}

// TestShimDecidesJailed: a shim runs inside run mode's jail, so a
// `jailed: true` allow rule lets its command run there with no human
// (the shimmed `git add` waited for one before).
func TestShimDecidesJailed(t *testing.T) {
	fx := newFixture(t, "version: 1\nshell:\n  allow:\n    - {pattern: \"git add **\", jailed: true}\n")
	out, errOut, code := run(t, fx.shim(fx.shimDir+":"+fx.realDir, nil, "add", "x.go"))
	if code != 0 || out != "REAL git add x.go\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
