package windsurf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/hooktest"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

type standIns struct {
	q    *hooktest.Queue
	seen []string
}

func (s *standIns) opener(tier policy.Tier) adapter.Opener {
	return func(_ context.Context, cwd string, _ bool) (*hook.Core, error) {
		s.q = &hooktest.Queue{Decide: func(r *queue.Request) *queue.Result {
			z := 0
			return &queue.Result{Decision: queue.Approved, ExitCode: &z, Stdout: "pushed <ok>\n", Kind: r.Kind}
		}}
		p := hooktest.Policy(func(t policy.Trigger, subject string) policy.Tier {
			s.seen = append(s.seen, string(t)+" "+subject)
			return tier
		})
		return &hook.Core{Folder: folder.Folder{Root: cwd}, Policy: p,
			Queue: func() (hook.Queue, error) { return s.q, nil }, Audit: &hooktest.Audit{}, Originals: &hooktest.Originals{}}, nil
	}
}

func event(action string, info map[string]any) string {
	b, _ := json.Marshal(map[string]any{"agent_action_name": action, "trajectory_id": "traj-1", "execution_id": "exec-1",
		"timestamp": "2026-01-01T00:00:00Z", "tool_info": info, "extra": true})
	return string(b)
}

func TestAnswers(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "main.go")
	os.WriteFile(existing, []byte("package main\n"), 0o644)
	shell := event(PreRunCommand, map[string]any{"command_line": "git push", "cwd": dir})
	tests := []struct {
		name, in   string
		tier       policy.Tier
		code       int
		stderr     string
		classified string
	}{
		{"run allowed", shell, policy.Allow, 0, "", "shell git push"},
		{"run denied", shell, policy.Deny, 2, "sandbox: DENIED by this folder's policy", "shell git push"},
		{"run approved: the output on stderr", shell, policy.Escalate, 2, "--- stdout ---\npushed <ok>", "shell git push"},
		{"write", event(PreWriteCode, map[string]any{"file_path": existing, "edits": []map[string]string{{"old_string": "main", "new_string": "app"}}}),
			policy.Deny, 2, "DENIED", "write " + existing},
		{"read", event(PreReadCode, map[string]any{"file_path": "/etc/shadow"}), policy.Allow, 0, "", "read /etc/shadow"},
		{"mcp", event(PreMCPToolUse, map[string]any{"mcp_server_name": "github", "mcp_tool_name": "create_issue", "mcp_tool_arguments": map[string]any{"t": 1}}),
			policy.Allow, 0, "", "mcp mcp__github__create_issue"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &standIns{}
			var stdout, stderr bytes.Buffer
			code, err := Run(context.Background(), strings.NewReader(tc.in), &stdout, &stderr, s.opener(tc.tier))
			if err != nil || code != tc.code || !strings.Contains(stderr.String(), tc.stderr) || stdout.Len() != 0 {
				t.Errorf("code %d, err %v, stderr %q, stdout %q", code, err, stderr.String(), stdout.String())
			}
			if tc.code == 0 && stderr.Len() != 0 {
				t.Errorf("stderr on an allow: %q", stderr.String())
			}
			if len(s.seen) != 1 || s.seen[0] != tc.classified {
				t.Errorf("classified %v, want %q", s.seen, tc.classified)
			}
		})
	}
}

func TestWriteRequests(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "a.txt")
	os.WriteFile(existing, []byte("one two"), 0o644)
	tests := []struct {
		name, path string
		edits      []map[string]string
		content    *string
		edit       bool
	}{
		{"new file", filepath.Join(dir, "new.txt"), []map[string]string{{"old_string": "", "new_string": "hello"}}, ptr("hello"), false},
		{"edit", existing, []map[string]string{{"old_string": "one", "new_string": "1"}}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &standIns{}
			in := event(PreWriteCode, map[string]any{"file_path": tc.path, "edits": tc.edits})
			if _, err := Run(context.Background(), strings.NewReader(in), &bytes.Buffer{}, &bytes.Buffer{}, s.opener(policy.Escalate)); err != nil {
				t.Fatal(err)
			}
			r := s.q.Submitted[0]
			if r.Kind != queue.KindWrite || r.Write.Path != tc.path || r.Source != Source || r.Session != "traj-1" || r.Cwd != dir {
				t.Fatalf("request %+v", r)
			}
			if (tc.content != nil) != (r.Write.Content != nil) || tc.edit != (len(r.Write.Edits) == 1) {
				t.Errorf("payload %+v", r.Write)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestFailsClosed(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not json", "{"},
		{"no action", `{"tool_info":{}}`},
		{"unknown action", event("post_cascade_response", map[string]any{"response": "x"})},
		{"empty command", event(PreRunCommand, map[string]any{"command_line": " ", "cwd": "/proj"})},
		{"write without path", event(PreWriteCode, map[string]any{"edits": []any{}})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), strings.NewReader(tc.in), &bytes.Buffer{}, &bytes.Buffer{}, (&standIns{}).opener(policy.Allow))
			if !errors.Is(err, adapter.ErrBadInput) {
				t.Fatalf("err = %v", err)
			}
			var stderr bytes.Buffer
			if code := Refuse(&bytes.Buffer{}, &stderr, err); code != 2 || !strings.Contains(stderr.String(), "refused") {
				t.Errorf("refusal %d %q", code, stderr.String())
			}
		})
	}
}
