package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// testEnv is a project root, a home and a state dir in temp dirs, with
// XDG_STATE_HOME pointing into it so nothing touches the real state.
type testEnv struct {
	root, home, state string
}

func newTestEnv(t testing.TB) testEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv{
		root:  filepath.Join(base, "proj"),
		home:  filepath.Join(base, "home"),
		state: filepath.Join(base, "state", "sandbox"),
	}
	for _, d := range []string{env.root, env.home, env.state, filepath.Join(env.root, ".sandbox")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("HOME", env.home)
	return env
}

// engine builds an engine enforcing src (nil: nothing accepted).
func (env testEnv) engine(t testing.TB, src []byte, rem ...Remembered) *Engine {
	t.Helper()
	var p *Policy
	if src != nil {
		var err error
		if p, err = Parse("policy.yaml", src); err != nil {
			t.Fatalf("parse: %v", err)
		}
	}
	e, err := New(env.root, p, Options{Home: env.home, StateDir: env.state, Remembered: rem,
		CaseInsensitive: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// lit makes an Exec effect of literal words.
func lit(words ...string) shell.Effect {
	ef := shell.Effect{Kind: shell.Exec}
	for _, w := range words {
		ef.Args = append(ef.Args, shell.Word{Text: w})
	}
	return ef
}

// dyn makes an Exec effect where words starting with '$' are dynamic.
func dyn(words ...string) shell.Effect {
	ef := lit(words...)
	for i := range ef.Args {
		if len(ef.Args[i].Text) > 0 && ef.Args[i].Text[0] == '$' {
			ef.Args[i].Dynamic = true
		}
	}
	return ef
}

func mustWrite(t testing.TB, path string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
