//go:build linux && cgo

package shims

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// Two policies whose compiled caches have the same size: swapping one
// for the other in place, with the modification time put back, keeps the
// cache's identity, so an allow entry still matches while the Go path
// would now deny. A call that succeeds after the swap was served by the
// C fast path; one that is denied went through Go.
const (
	allowStatus = "version: 1\nshell:\n  allow: [\"git status **\"]\n"
	denyStatus  = "version: 1\nshell:\n  deny:  [\"git status **\"]\n"
)

// fastFixture is a fixture with the fast path on (the shim dir named, a
// private temp dir); it returns the shim environment and the allow
// cache's directory.
func fastFixture(t *testing.T) (*fixture, []string, string) {
	fx := newFixture(t, allowStatus)
	tmp := t.TempDir()
	return fx, []string{EnvDir + "=" + fx.shimDir, "TMPDIR=" + tmp}, filepath.Join(tmp, "sandbox-shims-"+strconv.Itoa(os.Getuid()))
}

// swapToDeny rewrites the policy cache in place with denyStatus and puts
// its modification time back.
func swapToDeny(t *testing.T, fx *fixture) {
	t.Helper()
	p, err := policy.Parse("policy.yaml", []byte(denyStatus))
	if err != nil {
		t.Fatal(err)
	}
	data := policy.EncodeCompiled(p)
	path := CachePath(fx.shimDir)
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != int64(len(data)) {
		t.Fatalf("cache %v, %d bytes; the deny policy compiles to %d", err, fi.Size(), len(data))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// primed runs the call once (the Go path allows it and remembers it),
// then swaps the policy to deny.
func primed(t *testing.T, fx *fixture, path string, env []string, args ...string) {
	t.Helper()
	if out, errOut, code := run(t, fx.shim(path, env, args...)); code != 0 {
		t.Fatalf("priming call: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	swapToDeny(t, fx)
}

func TestFastPathServesARepeatedAllowedCall(t *testing.T) {
	fx, env, dir := fastFixture(t)
	path := fx.shimDir + ":" + fx.realDir
	primed(t, fx, path, env, "status", "x")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("allow cache dir: %v %v", fi, err)
	}
	if out, errOut, code := run(t, fx.shim(path, env, "status", "x")); code != 0 || out != "REAL git status [x]\n" {
		t.Fatalf("not served by the fast path: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestFastPathNeverExecsItself(t *testing.T) {
	fx, env, _ := fastFixture(t)
	base := filepath.Dir(fx.f.Root)
	link := filepath.Join(base, "shims-link")
	if err := os.Symlink(fx.shimDir, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(base, "other")
	mkdir(t, other)
	exe, _ := os.Executable()
	if err := os.Link(exe, filepath.Join(other, "git")); err != nil {
		testenv.Skip(t, "no hard links here: "+err.Error())
	}
	writeExec(t, filepath.Join(fx.f.Root, "git"), "#!/bin/sh\necho PLANTED\n")
	primed(t, fx, fx.shimDir+":"+fx.realDir, env, "status", "y")
	for _, path := range [][]string{
		{fx.shimDir, fx.shimDir, fx.realDir},
		{link, fx.shimDir, link, fx.realDir},
		{link, fx.realDir},
		{fx.shimDir, other, fx.realDir},
		{fx.shimDir, ".", "", fx.realDir},
	} {
		t.Run(strings.Join(path, ":"), func(t *testing.T) {
			out, errOut, code := run(t, fx.shim(strings.Join(path, ":"), env, "status", "y"))
			if code != 0 || out != "REAL git status [y]\n" {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
	// No real git after the shim dir: the fast path gives up, Go decides.
	if _, _, code := run(t, fx.shim(fx.shimDir+":"+other, env, "status", "y")); code != ExitRefused {
		t.Errorf("exit %d, want the Go path's denial", code)
	}
}

func TestFastPathMisses(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, fx *fixture, dir string, env *[]string, cwd *string, args *[]string)
	}{
		{"other arguments", func(_ *testing.T, _ *fixture, _ string, _ *[]string, _ *string, args *[]string) {
			*args = append(*args, "more")
		}},
		{"another directory", func(_ *testing.T, fx *fixture, _ string, _ *[]string, cwd *string, _ *[]string) {
			*cwd = fx.shimDir
		}},
		{"another home", func(_ *testing.T, _ *fixture, _ string, env *[]string, _ *string, _ *[]string) {
			*env = append(*env, "HOME=/nonexistent")
		}},
		{"turned off", func(_ *testing.T, _ *fixture, _ string, env *[]string, _ *string, _ *[]string) {
			*env = append(*env, "SANDBOX_SHIM_NOFAST=1")
		}},
		{"no shim dir named", func(_ *testing.T, _ *fixture, _ string, env *[]string, _ *string, _ *[]string) {
			*env = (*env)[1:]
		}},
		{"expired", func(t *testing.T, _ *fixture, dir string, _ *[]string, _ *string, _ *[]string) {
			setAge(t, dir, allowTTL+time.Minute)
		}},
		{"dated in the future", func(t *testing.T, _ *fixture, dir string, _ *[]string, _ *string, _ *[]string) {
			setAge(t, dir, -time.Hour)
		}},
		{"forged content", func(t *testing.T, _ *fixture, dir string, _ *[]string, _ *string, _ *[]string) {
			forEntry(t, dir, func(p string) { os.WriteFile(p, []byte(strings.Repeat("x", 40)), 0o600) })
		}},
		{"a link for an entry", func(t *testing.T, _ *fixture, dir string, _ *[]string, _ *string, _ *[]string) {
			forEntry(t, dir, func(p string) { os.Rename(p, p+".real"); os.Symlink(p+".real", p) })
		}},
		{"a cache dir others can write", func(t *testing.T, _ *fixture, dir string, _ *[]string, _ *string, _ *[]string) {
			os.Chmod(dir, 0o755)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx, env, dir := fastFixture(t)
			path := fx.shimDir + ":" + fx.realDir
			primed(t, fx, path, env, "status", "z")
			cwd, args := fx.f.Root, []string{"status", "z"}
			tc.change(t, fx, dir, &env, &cwd, &args)
			cmd := fx.shim(path, env, args...)
			cmd.Dir = cwd
			if out, _, code := run(t, cmd); code != ExitRefused {
				t.Errorf("exit %d, stdout %q: served from the cache", code, out)
			}
		})
	}
}

func forEntry(t *testing.T, dir string, fn func(path string)) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil || len(des) == 0 {
		t.Fatalf("no allow entries: %v", err)
	}
	for _, de := range des {
		fn(filepath.Join(dir, de.Name()))
	}
}

// setAge dates every entry d ago (in the future when d < 0).
func setAge(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	forEntry(t, dir, func(p string) {
		then := time.Now().Add(-d)
		if err := os.Chtimes(p, then, then); err != nil {
			t.Fatal(err)
		}
	})
}
