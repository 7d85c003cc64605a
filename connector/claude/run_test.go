package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/hooktest"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

func opener(p hooktest.Policy, decide func(*queue.Request) *queue.Result) adapter.Opener {
	return func(_ context.Context, cwd string, _ bool) (*hook.Core, error) {
		q := &hooktest.Queue{Decide: decide}
		return &hook.Core{Folder: folder.Folder{Root: cwd}, Policy: p,
			Queue: func() (hook.Queue, error) { return q, nil }, Audit: &hooktest.Audit{}, Originals: &hooktest.Originals{}}, nil
	}
}

func all(t policy.Tier) hooktest.Policy {
	return func(policy.Trigger, string) policy.Tier { return t }
}

func event(ev, tool string, input any) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": "/proj", "hook_event_name": ev,
		"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1", "transcript_path": "/x", "permission_mode": "default",
		"some_future_field": 1})
	return string(b)
}

func TestRunAnswers(t *testing.T) {
	approve := func(*queue.Request) *queue.Result {
		z := 0
		return &queue.Result{Decision: queue.Approved, ExitCode: &z, Stdout: "pushed <ok> & done"}
	}
	tests := []struct {
		name, in string
		tier     policy.Tier
		want     string // exact stdout, or a substring when prefixed by "~"
	}{
		{"allow", event(toolhook.PreToolUse, "Bash", map[string]any{"command": "ls"}), policy.Allow,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n"},
		{"deny", event(toolhook.PreToolUse, "Write", map[string]any{"file_path": "/proj/.sandbox/policy.yaml", "content": "x"}), policy.Deny,
			`~{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"sandbox: DENIED by this folder's policy`},
		{"escalate approved", event(toolhook.PreToolUse, "Bash", map[string]any{"command": "git push", "description": "ship"}), policy.Escalate,
			`~pushed <ok> & done`},
		{"post", event(toolhook.PostToolUse, "Bash", map[string]any{"command": "ls"}), policy.Allow, ""},
		{"session start", `{"session_id":"s","cwd":"/proj","hook_event_name":"SessionStart","source":"startup"}`, policy.Allow,
			`~{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"This project is guarded by sandbox`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := toolhook.Run(context.Background(), Claude, strings.NewReader(tc.in), &out, opener(all(tc.tier), approve))
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if w, sub := strings.CutPrefix(tc.want, "~"); sub {
				if !strings.Contains(got, w) {
					t.Errorf("stdout lacks %s:\n%s", w, got)
				}
			} else if got != tc.want {
				t.Errorf("stdout = %q, want %q", got, tc.want)
			}
			if got != "" && !json.Valid([]byte(got)) {
				t.Errorf("stdout is not JSON: %s", got)
			}
		})
	}
}

func TestRunFailsClosed(t *testing.T) {
	panicky := func(context.Context, string, bool) (*hook.Core, error) { panic("boom") }
	failing := func(context.Context, string, bool) (*hook.Core, error) { return nil, errors.New("no policy") }
	ok := opener(all(policy.Allow), nil)
	tests := []struct {
		name, in string
		open     adapter.Opener
		is       error
	}{
		{"empty stdin", "", ok, adapter.ErrBadInput},
		{"not json", "{nope", ok, adapter.ErrBadInput},
		{"no event name", `{"tool_name":"Bash"}`, ok, adapter.ErrBadInput},
		{"unknown event", `{"hook_event_name":"Stop","cwd":"/proj"}`, ok, toolhook.ErrUnknownEvent},
		{"relative cwd", `{"hook_event_name":"PreToolUse","cwd":"proj","tool_name":"Bash","tool_input":{"command":"ls"}}`, ok, adapter.ErrBadInput},
		{"no tool name", `{"hook_event_name":"PreToolUse","cwd":"/proj"}`, ok, adapter.ErrBadInput},
		{"bash without command", event(toolhook.PreToolUse, "Bash", map[string]any{}), ok, adapter.ErrBadInput},
		{"bad tool input", `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Write","tool_input":"str"}`, ok, adapter.ErrBadInput},
		{"opener fails", event(toolhook.PreToolUse, "Bash", map[string]any{"command": "ls"}), failing, nil},
		{"panic", event(toolhook.PreToolUse, "Bash", map[string]any{"command": "ls"}), panicky, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := toolhook.Run(context.Background(), Claude, strings.NewReader(tc.in), &out, tc.open)
			if err == nil {
				t.Fatalf("no error; stdout %q", out.String())
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestMapTool(t *testing.T) {
	tests := []struct {
		tool  string
		input string
		check func(*hook.Call) bool
	}{
		{"Bash", `{"command":"ls","description":"list"}`, func(c *hook.Call) bool {
			return c.Action == hook.Shell && c.Script == "ls" && c.Justification == "list"
		}},
		{"Write", `{"file_path":"a/b.txt","content":"x"}`, func(c *hook.Call) bool {
			return c.Action == hook.Write && c.Paths[0] == "/proj/a/b.txt" && *c.Content == "x" && c.Executable
		}},
		{"Edit", `{"file_path":"/proj/a","old_string":"x","new_string":"y","replace_all":true}`, func(c *hook.Call) bool {
			return c.Action == hook.Write && len(c.Edits) == 1 && c.Edits[0].ReplaceAll && c.Content == nil
		}},
		{"MultiEdit", `{"file_path":"/proj/a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"p","new_string":"q","replace_all":true}]}`, func(c *hook.Call) bool {
			return len(c.Edits) == 2 && c.Edits[1].ReplaceAll && c.Executable
		}},
		{"NotebookEdit", `{"notebook_path":"/proj/n.ipynb","new_source":"x"}`, func(c *hook.Call) bool {
			return c.Action == hook.Write && c.Paths[0] == "/proj/n.ipynb" && !c.Executable
		}},
		{"Read", `{"file_path":"/etc/passwd"}`, func(c *hook.Call) bool { return c.Action == hook.Read && c.Paths[0] == "/etc/passwd" }},
		{"Read", `{"file_path":"/proj/../etc/passwd"}`, func(c *hook.Call) bool { return c.Paths[0] == "/etc/passwd" }},
		{"Glob", `{"pattern":"/etc/**"}`, func(c *hook.Call) bool { return len(c.Paths) == 0 && c.Patterns[0] == "/etc/**" }},
		{"Grep", `{"pattern":"secret","path":"/home","glob":"*.env"}`, func(c *hook.Call) bool {
			return c.Paths[0] == "/home" && c.Patterns[0] == "*.env"
		}},
		{"WebFetch", `{"url":"https://example.com/x","prompt":"p"}`, func(c *hook.Call) bool { return c.Action == hook.Fetch && c.URL == "https://example.com/x" }},
		{"WebSearch", `{"query":"go"}`, func(c *hook.Call) bool { return c.Action == hook.Search && c.Query == "go" }},
		{"mcp__github__create_issue", `{"title":"x"}`, func(c *hook.Call) bool {
			return c.Action == hook.MCPTool && string(c.Args) == `{"title":"x"}`
		}},
		{"TodoWrite", `{}`, func(c *hook.Call) bool { return c.Action == hook.Unknown }},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			c := &hook.Call{Cwd: "/proj", Tool: tc.tool}
			if err := MapTool(tc.tool, json.RawMessage(tc.input), c); err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("call = %+v", c)
			}
		})
	}
}

func FuzzRun(f *testing.F) {
	f.Add(event(toolhook.PreToolUse, "Bash", map[string]any{"command": "ls"}))
	f.Add(event(toolhook.PreToolUse, "MultiEdit", map[string]any{"file_path": "x", "edits": []any{}}))
	f.Add(`{"hook_event_name":"PostToolUse","cwd":"/p","tool_name":"Glob","tool_input":{"pattern":"../*"},"tool_response":{"stdout":1}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		err := toolhook.Run(context.Background(), Claude, strings.NewReader(in), &out, opener(all(policy.Escalate), func(*queue.Request) *queue.Result {
			return &queue.Result{Decision: queue.Denied}
		}))
		if err == nil && out.Len() > 0 && !json.Valid(out.Bytes()) {
			t.Fatalf("invalid JSON answer %q", out.String())
		}
		if err != nil && strings.Contains(err.Error(), "panic") {
			t.Fatalf("panic: %v", err)
		}
	})
}
