//go:build linux

package jailinit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDirectEnvMatchesBash: the program started directly gets the
// environment that `bash -c 'trap ... EXIT; PROGRAM'` (the connector's
// jailed form) gives it, for the variables bash adjusts.
func TestDirectEnvMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	envProg, err := exec.LookPath("env")
	if err != nil {
		t.Skip("env is not installed")
	}
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + filepath.Dir(envProg) + ":/usr/bin:/bin"
	cases := [][]string{
		{path},
		{path, "SHLVL=3", "FOO=bar baz", "_=/old"},
		{path, "SHLVL=", "PWD=" + dir},
		{path, "SHLVL=08", "PWD=" + link, "OLDPWD=/"},
		{path, "SHLVL=0", "PWD=/nonexistent", "OLDPWD=/nonexistent"},
		{path, "PWD=relative", "OLDPWD=" + dir},
		{path, "SHLVL=998"},
	}
	for _, env := range cases {
		cmd := exec.Command(bash, "-c", "trap 'pwd -P >&0 2>/dev/null' EXIT; env -0")
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", env, err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		got, ok := shellChildEnv(env, envProg, dir)
		if !ok {
			t.Errorf("%q: refused", env)
			continue
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("env %q:\n direct %q\n bash   %q", env, got, want)
		}
	}
	for _, lvl := range []string{"+3", " 7", "x", "999", "-1", "0x10"} {
		if _, ok := shellChildEnv([]string{path, "SHLVL=" + lvl}, envProg, dir); ok {
			t.Errorf("SHLVL=%q: taken, want the shell", lvl)
		}
	}
}

// TestDirectCommandDeclines: what makes the shell do more than start the
// program sends the command to the shell.
func TestDirectCommandDeclines(t *testing.T) {
	envProg, err := exec.LookPath("env")
	if err != nil {
		t.Skip("env is not installed")
	}
	path := "PATH=" + filepath.Dir(envProg)
	dir := t.TempDir()
	base := Config{Argv: []string{"bash", "-c", "env"}, Direct: []string{"env"}, Dir: dir, Env: []string{path}}
	if p, _, _, ok := directCommand(&base); !ok || p != filepath.Join(filepath.Dir(envProg), "env") {
		t.Fatalf("plain: %q, %v", p, ok)
	}
	for name, c := range map[string]Config{
		"no Direct":         {Argv: base.Argv, Dir: dir, Env: base.Env},
		"exported function": {Direct: []string{"env"}, Dir: dir, Env: []string{path, "BASH_FUNC_env%%=() { :; }"}},
		"BASH_ENV":          {Direct: []string{"env"}, Dir: dir, Env: []string{path, "BASH_ENV=/x"}},
		"SHELLOPTS":         {Direct: []string{"env"}, Dir: dir, Env: []string{path, "SHELLOPTS=errexit"}},
		"BASHOPTS":          {Direct: []string{"env"}, Dir: dir, Env: []string{path, "BASHOPTS=extglob"}},
		"EXECIGNORE":        {Direct: []string{"env"}, Dir: dir, Env: []string{path, "EXECIGNORE=*"}},
		"no PATH":           {Direct: []string{"env"}, Dir: dir, Env: []string{"A=1"}},
		"not found":         {Direct: []string{"no-such-program-here"}, Dir: dir, Env: []string{path}},
		"a directory":       {Direct: []string{"."}, Dir: dir, Env: []string{path}},
		"odd SHLVL":         {Direct: []string{"env"}, Dir: dir, Env: []string{path, "SHLVL=+1"}},
	} {
		if p, _, _, ok := directCommand(&c); ok {
			t.Errorf("%s: direct %s, want the shell", name, p)
		}
	}
}
