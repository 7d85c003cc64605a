package hook_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/hooktest"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

type fakeJailer struct{}

func (fakeJailer) Wrap(script, _ string) (string, error) { return "jail -- " + script, nil }

// TestHookDecidesJailedWhenItJails: the hook decides with the jailed
// policy exactly when the call will run in the jail: a jailer and no
// deferAllowallow (which hands the call back unrewritten), or the hook runs
// inside the jail; a `jailed: true` rule never allows a command that will
// run with the user's rights.
func TestHookDecidesJailedWhenItJails(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse("policy.yaml", []byte("version: 1\nshell:\n  allow:\n    - {pattern: \"node **\", jailed: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := policy.New(root, p, policy.Options{Home: t.TempDir(), StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		jail       hook.Jailer
		state      hook.JailState
		deferAllow bool
		action     hook.Action
		want       hook.Verdict
	}{
		{"jailer rewrites", fakeJailer{}, hook.JailWraps, false, hook.Shell, hook.Allow},
		{"inside the jail", nil, hook.JailInside, false, hook.Shell, hook.Allow},
		{"no jail here", nil, hook.JailUnavailable, false, hook.Shell, hook.Deny},
		{"deferAllowallow runs it unrewritten", fakeJailer{}, hook.JailWraps, true, hook.Shell, hook.Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := &hooktest.Queue{Decide: func(*queue.Request) *queue.Result {
				return &queue.Result{Decision: queue.Denied, Reason: "no"}
			}}
			core := &hook.Core{Folder: folder.Folder{Root: root}, Policy: eng, Jail: tc.jail, JailState: tc.state,
				Queue: func() (hook.Queue, error) { return q, nil }, Audit: &hooktest.Audit{},
				Options: hook.Options{Wait: 50 * time.Millisecond, DeferAllow: tc.deferAllow}}
			call := &hook.Call{Cwd: root, Tool: "Bash", Action: tc.action, Script: "node server.js"}
			out, err := core.PreToolUse(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			got := out.Verdict
			if got == hook.Defer {
				got = hook.Allow
			}
			if got != tc.want {
				t.Fatalf("verdict %v (%s), want %v", out.Verdict, out.Reason, tc.want)
			}
			if out.Decision.Jailed != core.RunsJailed(call) {
				t.Errorf("decision jailed %v, runs jailed %v", out.Decision.Jailed, core.RunsJailed(call))
			}
		})
	}
}

// TestHookMessageSaysWhy: the model's refusal names the responsible part
// and the narrowest rule that would allow it.
func TestHookMessageSaysWhy(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse("policy.yaml", []byte("version: 1\nshell:\n  deny:\n    - {pattern: \"shred **\", reason: \"never\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := policy.New(root, p, policy.Options{Home: t.TempDir(), StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	core := &hook.Core{Folder: folder.Folder{Root: root}, Policy: eng, Audit: &hooktest.Audit{}}
	out, err := core.PreToolUse(context.Background(), &hook.Call{Cwd: root, Tool: "Bash", Action: hook.Shell, Script: "shred x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Reason, "Why: denied because of shell shred x") || !strings.Contains(out.Reason, "no rule can allow it") {
		t.Errorf("reason %q does not say why", out.Reason)
	}
}
