package cursor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/hooktest"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// stand-ins records what the core was asked.
type standIns struct {
	q     *hooktest.Queue
	audit *hooktest.Audit
	seen  []string // "trigger subject" classified
}

func (s *standIns) opener(tier policy.Tier, decide func(*queue.Request) *queue.Result) adapter.Opener {
	return func(_ context.Context, cwd string, _ bool) (*hook.Core, error) {
		s.q = &hooktest.Queue{Decide: decide}
		s.audit = &hooktest.Audit{}
		p := hooktest.Policy(func(t policy.Trigger, subject string) policy.Tier {
			s.seen = append(s.seen, string(t)+" "+subject)
			return tier
		})
		return &hook.Core{Folder: folder.Folder{Root: cwd}, Policy: p,
			Queue: func() (hook.Queue, error) { return s.q, nil }, Audit: s.audit, Originals: &hooktest.Originals{}}, nil
	}
}

func approve(*queue.Request) *queue.Result {
	z := 0
	return &queue.Result{Decision: queue.Approved, ExitCode: &z, Stdout: "pushed <ok> & done\n", Approver: queue.Approver{User: "ann", Surface: "watch"}}
}

func event(name string, fields map[string]any) string {
	m := map[string]any{"hook_event_name": name, "conversation_id": "conv-1", "generation_id": "gen-1",
		"workspace_roots": []string{"/proj"}, "cursor_version": "2.3.1", "future_field": true}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func run(t *testing.T, s *standIns, tier policy.Tier, in string) (Output, error) {
	t.Helper()
	var out bytes.Buffer
	code, err := Run(context.Background(), strings.NewReader(in), &out, &bytes.Buffer{}, s.opener(tier, approve))
	if code != 0 {
		t.Errorf("exit code %d", code)
	}
	var o Output
	if err == nil && out.Len() > 0 {
		if jerr := json.Unmarshal(out.Bytes(), &o); jerr != nil {
			t.Fatalf("answer %q: %v", out.String(), jerr)
		}
	}
	return o, err
}

func TestAnswers(t *testing.T) {
	shell := event(BeforeShellExecution, map[string]any{"command": "git push", "cwd": "/proj/sub"})
	mcp := event(BeforeMCPExecution, map[string]any{"tool_name": "create_issue", "tool_input": `{"title":"x"}`, "command": "npx gh-mcp"})
	read := event(BeforeReadFile, map[string]any{"file_path": "/proj/.env", "content": "SECRET=1"})
	tests := []struct {
		name, in   string
		tier       policy.Tier
		permission string
		agent      string // substring of agent_message
		classified string
	}{
		{"shell allowed", shell, policy.Allow, Allow, "", "shell git push"},
		{"shell denied", shell, policy.Deny, Deny, "sandbox: DENIED by this folder's policy", "shell git push"},
		{"shell approved carries the output", shell, policy.Escalate, Deny, "pushed <ok> & done", "shell git push"},
		{"mcp allowed", mcp, policy.Allow, Allow, "", "mcp mcp__unknown__create_issue"},
		{"mcp denied", mcp, policy.Deny, Deny, "DENIED", "mcp mcp__unknown__create_issue"},
		{"read allowed", read, policy.Allow, Allow, "", "read /proj/.env"},
		{"read escalated is refused, without messages", read, policy.Escalate, Deny, "", "read /proj/.env"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &standIns{}
			o, err := run(t, s, tc.tier, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if o.Permission != tc.permission || !strings.Contains(o.AgentMessage, tc.agent) {
				t.Errorf("answer %+v", o)
			}
			if o.Permission == Deny && tc.agent != "" && o.UserMessage != adapter.FirstLine(o.AgentMessage) {
				t.Errorf("user_message %q", o.UserMessage)
			}
			if len(s.seen) != 1 || s.seen[0] != tc.classified {
				t.Errorf("classified %v, want %q", s.seen, tc.classified)
			}
		})
	}
}

func TestShellCallDetails(t *testing.T) {
	s := &standIns{}
	if _, err := run(t, s, policy.Escalate, event(BeforeShellExecution, map[string]any{"command": "git push", "cwd": "/proj/sub"})); err != nil {
		t.Fatal(err)
	}
	r := s.q.Submitted[0]
	if r.Source != Source || r.Agent != Name || r.Session != "conv-1" || r.Cwd != "/proj/sub" || r.Shell.Script != "git push" {
		t.Errorf("request %+v", r)
	}
	// No cwd: the workspace root.
	s = &standIns{}
	run(t, s, policy.Escalate, event(BeforeShellExecution, map[string]any{"command": "git push", "cwd": ""}))
	if r := s.q.Submitted[0]; r.Cwd != "/proj" {
		t.Errorf("cwd %q", r.Cwd)
	}
}

func TestMCPToolInputForms(t *testing.T) {
	for _, input := range []any{`{"q":1}`, map[string]any{"q": 1}} {
		s := &standIns{}
		if _, err := run(t, s, policy.Escalate, event(BeforeMCPExecution, map[string]any{"tool_name": "mcp__db__query", "tool_input": input})); err != nil {
			t.Fatal(err)
		}
		r := s.q.Submitted[0]
		if r.MCP == nil || r.MCP.Tool != "mcp__db__query" || string(r.MCP.Arguments) != `{"q":1}` {
			t.Errorf("request %+v %s", r.MCP, r.MCP.Arguments)
		}
	}
}

func TestAfterFileEditIsAudited(t *testing.T) {
	s := &standIns{}
	var out bytes.Buffer
	in := event(AfterFileEdit, map[string]any{"file_path": "/proj/a.go", "edits": []map[string]string{{"old_string": "a", "new_string": "b"}}})
	if _, err := Run(context.Background(), strings.NewReader(in), &out, &bytes.Buffer{}, s.opener(policy.Allow, approve)); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{}\n" || len(s.audit.Records) != 1 || s.audit.Records[0].Event != "tool.done" || s.audit.Records[0].Subject != "/proj/a.go" {
		t.Errorf("out %q, records %+v", out.String(), s.audit.Records)
	}
}

func TestFailsClosed(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not json", "{"},
		{"no event", `{"command":"ls"}`},
		{"unknown event", event("beforeSubmitPrompt", map[string]any{"prompt": "hi"})},
		{"empty command", event(BeforeShellExecution, map[string]any{"command": " "})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &standIns{}
			_, err := Run(context.Background(), strings.NewReader(tc.in), &bytes.Buffer{}, &bytes.Buffer{}, s.opener(policy.Allow, approve))
			if !errors.Is(err, adapter.ErrBadInput) {
				t.Fatalf("err = %v", err)
			}
			var out, stderr bytes.Buffer
			if code := Refuse(&out, &stderr, err); code != 2 {
				t.Errorf("code %d", code)
			}
			var o Output
			if json.Unmarshal(out.Bytes(), &o) != nil || o.Permission != Deny || !strings.Contains(o.AgentMessage, "refused") || stderr.Len() == 0 {
				t.Errorf("refusal %q %q", out.String(), stderr.String())
			}
		})
	}
	// An opener that fails, and a core that panics, fail closed too.
	boom := func(context.Context, string, bool) (*hook.Core, error) { return nil, errors.New("no state") }
	if _, err := Run(context.Background(), strings.NewReader(event(BeforeShellExecution, map[string]any{"command": "ls"})), &bytes.Buffer{}, &bytes.Buffer{}, boom); err == nil {
		t.Error("no error from a failing opener")
	}
	panics := func(context.Context, string, bool) (*hook.Core, error) { return &hook.Core{}, nil }
	if _, err := Run(context.Background(), strings.NewReader(event(BeforeShellExecution, map[string]any{"command": "ls"})), &bytes.Buffer{}, &bytes.Buffer{}, panics); err == nil {
		t.Error("no error from a core without policy")
	}
}
