package hook_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/hooktest"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// Every allowed call that deletes or overwrites files in the project is
// checkpointed before the agent runs it; calls that write nothing are not.
func TestAllowedCallsAreCheckpointed(t *testing.T) {
	content := "new"
	write := &hook.Call{Session: "s1", ToolUseID: "t2", Cwd: "/proj", Tool: "Write", Action: hook.Write,
		Paths: []string{"/proj/a.txt"}, Content: &content, Executable: true}
	tests := []struct {
		name  string
		call  *hook.Call
		paths []string
		whole bool
	}{
		{"rm -rf", bash("rm -rf src"), []string{"/proj/src"}, false},
		{"redirection", bash("echo x > notes.txt"), []string{"/proj/notes.txt"}, false},
		{"git reset --hard", bash("git reset --hard"), nil, true},
		{"Write", write, []string{"/proj/a.txt"}, false},
		{"read only", bash("ls -la && cat README.md"), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(tiers(policy.Allow, policy.Allow), nil)
			cks := &hooktest.Checkpoints{}
			f.core.Checkpoints = cks
			out, err := f.core.PreToolUse(context.Background(), tc.call)
			if err != nil || out.Verdict != hook.Allow {
				t.Fatalf("got %+v, %v", out, err)
			}
			if tc.paths == nil && !tc.whole {
				if len(cks.Taken) != 0 {
					t.Errorf("checkpointed %+v", cks.Taken)
				}
				return
			}
			if len(cks.Taken) != 1 {
				t.Fatalf("checkpoints %+v", cks.Taken)
			}
			req := cks.Taken[0]
			if req.WholeTree != tc.whole || strings.Join(req.Paths, " ") != strings.Join(tc.paths, " ") ||
				req.Session != "s1" || req.Tool != tc.call.Tool || req.Command != hook.Subject(tc.call) {
				t.Errorf("request %+v", req)
			}
		})
	}
}

// A checkpoint that cannot be kept never lets the call through as if it
// were: an allowed shell command goes to a human, with the reason; a
// write fails closed.
func TestCheckpointFailureIsNeverSilent(t *testing.T) {
	f := newFixture(tiers(policy.Allow, policy.Allow), approved("done"))
	f.core.Checkpoints = &hooktest.Checkpoints{Fail: errors.New("disk full")}
	out, err := f.core.PreToolUse(context.Background(), bash("rm -rf src"))
	if err != nil || out.Verdict != hook.Deny || out.RequestID == "" {
		t.Fatalf("got %+v, %v; want an escalation", out, err)
	}
	reqs := f.queue.Submitted
	if len(reqs) != 1 || !strings.Contains(strings.Join(reqs[0].PolicyReasons, " "), "could not keep a checkpoint") {
		t.Errorf("requests %+v", reqs)
	}
	content := "x"
	write := &hook.Call{Tool: "Write", Action: hook.Write, Cwd: "/proj", Paths: []string{"/proj/a"}, Content: &content, Executable: true}
	if out, err := f.core.PreToolUse(context.Background(), write); err == nil {
		t.Fatalf("write allowed without its checkpoint: %+v", out)
	}
}

func TestBriefSaysDeletionsAreRecoverable(t *testing.T) {
	f := newFixture(tiers(policy.Allow, policy.Allow), nil)
	if strings.Contains(f.core.Brief(hook.BriefOptions{}), "restore --checkpoint") {
		t.Error("a core that keeps no checkpoints promises them")
	}
	f.core.Checkpoints = &hooktest.Checkpoints{}
	if !strings.Contains(f.core.Brief(hook.BriefOptions{}), "sandbox restore --checkpoint") {
		t.Error("the brief does not say deletions are recoverable")
	}
}
