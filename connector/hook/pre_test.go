package hook_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/hooktest"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// withTier overrides the tier of one more trigger.
func withTier(p hooktest.Policy, trig policy.Trigger, tier policy.Tier) hooktest.Policy {
	return func(t policy.Trigger, s string) policy.Tier {
		if t == trig {
			return tier
		}
		return p(t, s)
	}
}

func tiers(shell, write policy.Tier) hooktest.Policy {
	return func(t policy.Trigger, _ string) policy.Tier {
		switch t {
		case policy.Shell:
			return shell
		case policy.Write:
			return write
		}
		return policy.Allow
	}
}

type fixture struct {
	core  *hook.Core
	queue *hooktest.Queue
	audit *hooktest.Audit
	origs *hooktest.Originals
}

func newFixture(p hooktest.Policy, decide func(*queue.Request) *queue.Result) *fixture {
	f := &fixture{queue: &hooktest.Queue{Decide: decide}, audit: &hooktest.Audit{}, origs: &hooktest.Originals{}}
	f.core = &hook.Core{
		Folder: folder.Folder{Root: "/proj"}, Policy: p,
		Queue: func() (hook.Queue, error) { return f.queue, nil },
		Audit: f.audit, Originals: f.origs,
		Options: hook.Options{Wait: 50 * time.Millisecond},
	}
	return f
}

func exit(n int) *int { return &n }

func approved(out string) func(*queue.Request) *queue.Result {
	return func(*queue.Request) *queue.Result {
		return &queue.Result{Decision: queue.Approved, Approver: queue.Approver{User: "alice@host", Surface: "cli"},
			ExitCode: exit(0), Stdout: out, DurationMS: 1500}
	}
}

func bash(cmd string) *hook.Call {
	return &hook.Call{Agent: "claude", Source: queue.SourceClaudeHook, Session: "s1", ToolUseID: "t1",
		Cwd: "/proj", Tool: "Bash", Action: hook.Shell, Script: cmd, Justification: "push the fix"}
}

func TestPreToolUse(t *testing.T) {
	content := "new"
	write := &hook.Call{Session: "s1", ToolUseID: "t2", Cwd: "/proj", Tool: "Write", Action: hook.Write,
		Paths: []string{"/proj/a.txt"}, Content: &content, Executable: true}
	tests := []struct {
		name      string
		policy    hooktest.Policy
		decide    func(*queue.Request) *queue.Result
		call      *hook.Call
		verdict   hook.Verdict
		reason    []string // substrings of the reason
		submitted int
		saved     int
	}{
		{name: "allow", policy: tiers(policy.Allow, policy.Allow), call: bash("ls"), verdict: hook.Allow},
		{name: "allowed write keeps the original", policy: tiers(policy.Allow, policy.Allow), call: write, verdict: hook.Allow, saved: 1},
		{name: "policy deny", policy: tiers(policy.Deny, policy.Allow), call: bash("rm -rf .sandbox"), verdict: hook.Deny,
			reason: []string{"DENIED by this folder's policy", "shell rm -rf .sandbox: deny by test"}},
		{name: "escalate approved", policy: tiers(policy.Escalate, policy.Allow), decide: approved("pushed\n"), call: bash("git push"),
			verdict: hook.Deny, submitted: 1,
			reason: []string{"APPROVED and EXECUTED outside the agent", "alice@host via cli", "request req-1", "exit code 0", "1.5s",
				"do not run it again", "--- stdout ---\npushed\n"}},
		{name: "escalate denied by human", policy: tiers(policy.Escalate, policy.Allow), call: bash("git push"), submitted: 1,
			decide: func(*queue.Request) *queue.Result {
				return &queue.Result{Decision: queue.Denied, Approver: queue.Approver{User: "bob"}, Reason: "not on friday"}
			},
			verdict: hook.Deny, reason: []string{"DENIED by bob", "not on friday", "Do not retry this; ask the user"}},
		{name: "escalate pending", policy: tiers(policy.Escalate, policy.Allow), call: bash("git push"), submitted: 1,
			decide:  func(*queue.Request) *queue.Result { return nil },
			verdict: hook.Deny, reason: []string{"WAITING", "req-1", "joins the same request", "check_request"}},
		{name: "escalated write applied", policy: tiers(policy.Allow, policy.Escalate), call: write, submitted: 1, saved: 1,
			decide: func(*queue.Request) *queue.Result {
				return &queue.Result{Decision: queue.Approved, Approver: queue.Approver{User: "alice"}, WrittenHash: "abc123"}
			},
			verdict: hook.Deny, reason: []string{"APPROVED and APPLIED", "/proj/a.txt", "abc123", "do not write it again"}},
		{name: "approved MCP call runs in the agent", policy: withTier(tiers(policy.Allow, policy.Allow), policy.MCP, policy.Escalate),
			call:   &hook.Call{Tool: "mcp__github__create_pr", Action: hook.MCPTool, Session: "s1", Cwd: "/proj"},
			decide: approved(""), verdict: hook.Allow, submitted: 1},
		{name: "approved fetch runs in the agent", policy: withTier(tiers(policy.Allow, policy.Allow), policy.Network, policy.Escalate),
			call:   &hook.Call{Tool: "WebFetch", Action: hook.Fetch, URL: "https://example.com/", Session: "s1", Cwd: "/proj"},
			decide: approved(""), verdict: hook.Allow, submitted: 1},
		{name: "denied MCP call", policy: withTier(tiers(policy.Allow, policy.Allow), policy.MCP, policy.Escalate),
			call: &hook.Call{Tool: "mcp__github__create_pr", Action: hook.MCPTool, Session: "s1", Cwd: "/proj"},
			decide: func(*queue.Request) *queue.Result {
				return &queue.Result{Decision: queue.Denied, Approver: queue.Approver{User: "bob"}, Reason: "no"}
			},
			verdict: hook.Deny, submitted: 1, reason: []string{"DENIED by bob"}},
		{name: "failed", policy: tiers(policy.Escalate, policy.Allow), call: bash("git push"), submitted: 1,
			decide: func(*queue.Request) *queue.Result {
				return &queue.Result{Decision: queue.Failed, Reason: "bash not found"}
			},
			verdict: hook.Deny, reason: []string{"could not be carried out", "bash not found"}},
		{name: "unknown tool denied", policy: tiers(policy.Allow, policy.Allow),
			call: &hook.Call{Tool: "Frobnicate", Action: hook.Unknown}, verdict: hook.Deny, reason: []string{"does not know"}},
		{name: "notebook edit cannot escalate", policy: tiers(policy.Allow, policy.Escalate),
			call:    &hook.Call{Tool: "NotebookEdit", Action: hook.Write, Paths: []string{"/x.ipynb"}},
			verdict: hook.Deny, reason: []string{"needs a human's approval", "cannot be carried out outside the agent"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(tc.policy, tc.decide)
			out, err := f.core.PreToolUse(context.Background(), tc.call)
			if err != nil {
				t.Fatalf("PreToolUse: %v", err)
			}
			if out.Verdict != tc.verdict {
				t.Fatalf("verdict = %v, want %v (reason %q)", out.Verdict, tc.verdict, out.Reason)
			}
			for _, s := range tc.reason {
				if !strings.Contains(out.Reason, s) {
					t.Errorf("reason lacks %q:\n%s", s, out.Reason)
				}
			}
			if n := len(f.queue.Submitted); n != tc.submitted {
				t.Errorf("submitted %d requests, want %d", n, tc.submitted)
			}
			if n := len(f.origs.Saved); n != tc.saved {
				t.Errorf("saved %d originals, want %d", n, tc.saved)
			}
		})
	}
}

func TestEscalationRequest(t *testing.T) {
	f := newFixture(tiers(policy.Escalate, policy.Allow), approved("x"))
	if _, err := f.core.PreToolUse(context.Background(), bash("git push")); err != nil {
		t.Fatal(err)
	}
	r := f.queue.Submitted[0]
	if r.Kind != queue.KindShell || r.Shell.Script != "git push" || r.Shell.Shell != "bash" {
		t.Errorf("payload = %+v %+v", r.Kind, r.Shell)
	}
	if r.Source != queue.SourceClaudeHook || r.Session != "s1" || r.Justification != "push the fix" || r.Cwd != "/proj" {
		t.Errorf("request = %+v", r)
	}
	if len(r.PolicyReasons) == 0 {
		t.Error("policy reasons missing")
	}
	if len(f.audit.Records) != 1 || f.audit.Records[0].Event != "hook.escalate" || f.audit.Records[0].RequestID != "req-1" {
		t.Errorf("audit = %+v", f.audit.Records)
	}
}

func TestFailClosed(t *testing.T) {
	content := "x"
	write := &hook.Call{Tool: "Write", Action: hook.Write, Paths: []string{"/proj/a"}, Content: &content, Executable: true}
	tests := []struct {
		name  string
		setup func(*fixture)
		call  *hook.Call
	}{
		{"audit fails on deny", func(f *fixture) { f.audit.Fail = errors.New("disk full") }, bash("rm -rf .sandbox")},
		{"originals fail", func(f *fixture) { f.origs.Fail = errors.New("disk full") }, write},
		{"queue cannot open", func(f *fixture) {
			f.core.Queue = func() (hook.Queue, error) { return nil, errors.New("no bus") }
		}, bash("git push")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := func(tr policy.Trigger, s string) policy.Tier {
				switch {
				case strings.Contains(s, ".sandbox"):
					return policy.Deny
				case tr == policy.Shell:
					return policy.Escalate
				}
				return policy.Allow
			}
			f := newFixture(p, approved("x"))
			tc.setup(f)
			out, err := f.core.PreToolUse(context.Background(), tc.call)
			if err == nil && out.Verdict != hook.Deny {
				t.Fatalf("verdict %v with no error: must fail closed", out.Verdict)
			}
		})
	}
}

func TestDeferAllow(t *testing.T) {
	f := newFixture(tiers(policy.Allow, policy.Allow), nil)
	f.core.Options.DeferAllow = true
	out, err := f.core.PreToolUse(context.Background(), bash("ls"))
	if err != nil || out.Verdict != hook.Defer {
		t.Fatalf("got %v, %v; want defer", out, err)
	}
}
