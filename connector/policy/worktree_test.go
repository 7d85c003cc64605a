package policy

import (
	"path/filepath"
	"testing"
)

// An agent of `sandbox agents` works in MAIN/.sandbox/worktrees/NAME, a
// folder of its own: its files are its to write, while MAIN's .sandbox/,
// the other agents' worktrees and its own .sandbox/ stay denied, by any
// path that reaches them (absolute, relative, through ..).
func TestSelfProtectionInAnAgentWorktree(t *testing.T) {
	env := newTestEnv(t)
	main := env.root
	env.root = filepath.Join(main, ".sandbox", "worktrees", "bob")
	alice := filepath.Join(main, ".sandbox", "worktrees", "alice")
	for _, p := range []string{"src/main.go", ".sandbox/policy.yaml"} {
		mustWrite(t, filepath.Join(env.root, p), "x")
		mustWrite(t, filepath.Join(alice, p), "x")
	}
	e := env.engine(t, DefaultYAML())
	for _, p := range []string{
		filepath.Join(env.root, "src/main.go"), filepath.Join(env.root, "src/new.go"), "src/main.go", "./notes.md",
	} {
		if d := e.Write(p, env.root); d.Decision == Deny {
			t.Errorf("write %s in its own worktree: %v (%v)", p, d.Decision, d.Reasons)
		}
	}
	for _, p := range []string{
		filepath.Join(env.root, ".sandbox/policy.yaml"), ".sandbox/escalations/x", "sub/.sandbox/x",
		filepath.Join(main, ".sandbox/policy.yaml"), filepath.Join(alice, "src/main.go"),
		"../alice/src/main.go", "../../policy.yaml", filepath.Join(env.root, "../alice/src/x"),
	} {
		if d := e.Write(p, env.root); d.Decision != Deny {
			t.Errorf("write %s from bob's worktree: %v, want deny (%v)", p, d.Decision, d.Reasons)
		}
	}
	for _, script := range []string{
		"cat " + filepath.Join(env.root, "src/main.go"),
		"cd " + env.root + " && ls src",
		"grep -r x " + filepath.Join(env.root, "src"),
	} {
		if d := e.Shell(script, env.root); d.Decision == Deny {
			t.Errorf("%s: %v (%v)", script, d.Decision, d.Reasons)
		}
	}
	for _, script := range []string{
		"echo x > " + filepath.Join(alice, "src/main.go"),
		"rm -rf " + filepath.Join(env.root, "../alice"),
		"cat " + filepath.Join(main, ".sandbox/policy.yaml"),
		"ls " + filepath.Join(env.root, ".sandbox"),
		"cp x " + filepath.Join(env.root, "sub/.sandbox/y"),
		"echo x > ../../policy.yaml",
	} {
		if d := e.Shell(script, env.root); d.Decision != Deny {
			t.Errorf("%s: %v, want deny (%v)", script, d.Decision, d.Reasons)
		}
	}
	// a project whose root is not inside a .sandbox/ is as before
	env2 := newTestEnv(t)
	e2 := env2.engine(t, DefaultYAML())
	if d := e2.Write(filepath.Join(env2.root, ".sandbox/policy.yaml"), env2.root); d.Decision != Deny {
		t.Errorf("the project's own .sandbox: %v", d.Decision)
	}
}
