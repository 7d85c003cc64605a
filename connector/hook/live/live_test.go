package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// project makes a folder with the default policy accepted, and returns its
// root and its per-user state (which Options.State passes on: nothing in
// the environment names it, so these tests run in parallel).
func project(tb testing.TB) (string, *userstate.State) {
	tb.Helper()
	f, st := testenv.Project(tb)
	os.WriteFile(f.Policy(), policy.DefaultYAML(), 0o644)
	if err := store.Accept(f, st, policy.DefaultYAML()); err != nil {
		tb.Fatal(err)
	}
	return f.Root, st
}

func gitStatus(dir string) *hook.Call {
	return &hook.Call{Agent: "claude", Session: "s", Cwd: dir, Tool: "Bash", Action: hook.Shell, Script: "git status --short"}
}

func TestOpenClassifiesWithTheAcceptedPolicy(t *testing.T) {
	t.Parallel()
	dir, st := project(t)
	core, err := Open(context.Background(), filepath.Join(dir), Options{Agent: "claude", Classify: true, State: st})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	out, err := core.PreToolUse(context.Background(), gitStatus(dir))
	if err != nil || out.Verdict != hook.Allow {
		t.Fatalf("git status: %+v %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(st.FolderPath(dir), "audit", "audit.lock")); err == nil {
		t.Error("an allowed call opened the audit log")
	}
	deny := &hook.Call{Agent: "claude", Cwd: dir, Tool: "Write", Action: hook.Write,
		Paths: []string{filepath.Join(dir, ".sandbox", "policy.yaml")}, Executable: true}
	if out, err := core.PreToolUse(context.Background(), deny); err != nil || out.Verdict != hook.Deny {
		t.Fatalf("write to .sandbox: %+v %v", out, err)
	}
}

func TestOpenWithoutAFolderFails(t *testing.T) {
	t.Parallel()
	_, st := testenv.Project(t)
	if _, err := Open(context.Background(), t.TempDir(), Options{State: st}); !errors.Is(err, folder.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkHookAllowed is the in-process part of the hook's hot path:
// open the folder and its accepted policy, classify an allowed call.
func BenchmarkHookAllowed(b *testing.B) {
	dir, st := project(b)
	ctx := context.Background()
	for b.Loop() {
		core, err := Open(ctx, dir, Options{Agent: "claude", Classify: true, State: st})
		if err != nil {
			b.Fatal(err)
		}
		if out, err := core.PreToolUse(ctx, gitStatus(dir)); err != nil || out.Verdict != hook.Allow {
			b.Fatal(out, err)
		}
		core.Close()
	}
}

// TestPolicyDefersAllowedCalls: `hook: {defer_allow: true}` in the
// accepted policy leaves allowed calls to the agent's own prompts, as the
// --defer-allow flag does; a denied call is still denied.
func TestPolicyDefersAllowedCalls(t *testing.T) {
	t.Parallel()
	f, st := testenv.Project(t)
	src := append(policy.DefaultYAML(), []byte("\nhook: {defer_allow: true}\n")...)
	os.WriteFile(f.Policy(), src, 0o644)
	if err := store.Accept(f, st, src); err != nil {
		t.Fatal(err)
	}
	core, err := Open(context.Background(), f.Root, Options{Agent: "claude", Classify: true, State: st})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	if out, err := core.PreToolUse(context.Background(), gitStatus(f.Root)); err != nil || out.Verdict != hook.Defer {
		t.Fatalf("git status: %+v %v, want a deferral", out, err)
	}
	deny := &hook.Call{Agent: "claude", Cwd: f.Root, Tool: "Write", Action: hook.Write,
		Paths: []string{filepath.Join(f.Root, ".sandbox", "policy.yaml")}, Executable: true}
	if out, err := core.PreToolUse(context.Background(), deny); err != nil || out.Verdict != hook.Deny {
		t.Fatalf("write to .sandbox: %+v %v", out, err)
	}
}
