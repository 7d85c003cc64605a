package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
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
	q     *hooktest.Queue
	audit *hooktest.Audit
	seen  []string
	tier  func(policy.Trigger, string) policy.Tier
	jail  hook.Jailer
}

func (s *standIns) opener() adapter.Opener {
	return func(_ context.Context, cwd string, _ bool) (*hook.Core, error) {
		s.q = &hooktest.Queue{Decide: approve}
		s.audit = &hooktest.Audit{}
		p := hooktest.Policy(func(t policy.Trigger, subject string) policy.Tier {
			s.seen = append(s.seen, string(t)+" "+subject)
			return s.tier(t, subject)
		})
		st := hook.JailUnknown
		if s.jail != nil {
			st = hook.JailWraps
		}
		return &hook.Core{Folder: folder.Folder{Root: cwd}, Policy: p, Jail: s.jail, JailState: st,
			Queue: func() (hook.Queue, error) { return s.q, nil }, Audit: s.audit, Originals: &hooktest.Originals{}}, nil
	}
}

func all(t policy.Tier) func(policy.Trigger, string) policy.Tier {
	return func(policy.Trigger, string) policy.Tier { return t }
}

func approve(r *queue.Request) *queue.Result {
	z := 0
	return &queue.Result{Decision: queue.Approved, ExitCode: &z, Stdout: "pushed <ok>\n", Kind: r.Kind}
}

func event(name, tool string, input any) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": "/t", "cwd": "/proj",
		"hook_event_name": name, "timestamp": "2026-01-01T00:00:00Z", "tool_name": tool, "tool_input": input, "extra": 1})
	return string(b)
}

func run(t *testing.T, s *standIns, in string) Output {
	t.Helper()
	var out bytes.Buffer
	code, err := Run(context.Background(), strings.NewReader(in), &out, &bytes.Buffer{}, s.opener())
	if err != nil || code != 0 {
		t.Fatalf("code %d, err %v", code, err)
	}
	var o Output
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("answer %q: %v", out.String(), err)
	}
	return o
}

func TestToolMapping(t *testing.T) {
	tests := []struct {
		tool  string
		input any
		seen  string // what the policy was asked, joined by " | "
	}{
		{"run_shell_command", map[string]any{"command": "git push", "description": "ship"}, "shell git push"},
		{"write_file", map[string]any{"file_path": "a.txt", "content": "x"}, "write /proj/a.txt"},
		{"replace", map[string]any{"file_path": "/proj/b.go", "old_string": "a", "new_string": "b"}, "write /proj/b.go"},
		{"read_file", map[string]any{"file_path": "/etc/shadow"}, "read /etc/shadow"},
		{"read_file", map[string]any{"absolute_path": "/proj/x"}, "read /proj/x"},
		{"list_directory", map[string]any{"dir_path": "sub"}, "read /proj/sub"},
		{"glob", map[string]any{"pattern": "../../**/*.pem"}, "read /proj | read /"},
		{"grep_search", map[string]any{"pattern": "TODO", "dir_path": "/home/u", "include_pattern": "*.go"}, "read /home/u"},
		{"read_many_files", map[string]any{"include": []string{"src/**", "/etc/*"}}, "read /proj | read /etc"},
		{"web_fetch", map[string]any{"prompt": "summarise https://example.com/a please"}, "network https://example.com/a"},
		{"google_web_search", map[string]any{"query": "go 1.26"}, "network websearch:go 1.26"},
		{"mcp__github__create_issue", map[string]any{"title": "x"}, "mcp mcp__github__create_issue"},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			s := &standIns{tier: all(policy.Allow)}
			if o := run(t, s, event(BeforeTool, tc.tool, tc.input)); o.Decision != Allow {
				t.Errorf("answer %+v", o)
			}
			if got := strings.Join(s.seen, " | "); got != tc.seen {
				t.Errorf("classified %q, want %q", got, tc.seen)
			}
		})
	}
}

func TestAnswers(t *testing.T) {
	shell := event(BeforeTool, "run_shell_command", map[string]any{"command": "git push", "description": "ship it", "dir_path": "sub"})
	tests := []struct {
		name     string
		tier     policy.Tier
		decision string
		reason   string
	}{
		{"allow", policy.Allow, Allow, ""},
		{"deny", policy.Deny, Deny, "sandbox: DENIED by this folder's policy"},
		{"approved output in the reason", policy.Escalate, Deny, "--- stdout ---\npushed <ok>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &standIns{tier: all(tc.tier)}
			o := run(t, s, shell)
			if o.Decision != tc.decision || !strings.Contains(o.Reason, tc.reason) {
				t.Errorf("answer %+v", o)
			}
			if tc.tier == policy.Escalate {
				r := s.q.Submitted[0]
				if r.Source != Source || r.Justification != "ship it" || r.Cwd != "/proj/sub" || r.Session != "s1" {
					t.Errorf("request %+v", r)
				}
			}
		})
	}
}

func TestWebFetchOfSeveralURLs(t *testing.T) {
	s := &standIns{tier: func(_ policy.Trigger, subject string) policy.Tier {
		if strings.Contains(subject, "evil") {
			return policy.Deny
		}
		return policy.Allow
	}}
	o := run(t, s, event(BeforeTool, "web_fetch", map[string]any{"prompt": "compare https://ok.example/ and https://evil.example/x"}))
	if o.Decision != Deny || len(s.seen) != 2 {
		t.Errorf("answer %+v, classified %v", o, s.seen)
	}
	s = &standIns{tier: all(policy.Allow)}
	if o := run(t, s, event(BeforeTool, "web_fetch", map[string]any{"prompt": "no address here"})); o.Decision != Deny {
		t.Errorf("a fetch without a URL: %+v", o)
	}
}

func TestSessionStartAndAfterTool(t *testing.T) {
	s := &standIns{tier: all(policy.Allow)}
	o := run(t, s, `{"session_id":"s","cwd":"/proj","hook_event_name":"SessionStart","source":"startup"}`)
	if o.HookSpecificOutput == nil || o.HookSpecificOutput.HookEventName != SessionStart ||
		!strings.Contains(o.HookSpecificOutput.AdditionalContext, "run_shell_command") {
		t.Errorf("session start %+v", o)
	}
	in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/proj", "hook_event_name": AfterTool,
		"tool_name": "run_shell_command", "tool_input": map[string]any{"command": "ls"},
		"tool_response": map[string]any{"llmContent": "x", "error": "boom"}})
	run(t, s, string(in))
	if len(s.audit.Records) != 1 || s.audit.Records[0].Outcome != "failed" || s.audit.Records[0].Subject != "ls" {
		t.Errorf("records %+v", s.audit.Records)
	}
}

func TestFailsClosed(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not json", "{"},
		{"no event", `{"tool_name":"x"}`},
		{"unknown event", event("BeforeModel", "", nil)},
		{"no tool", event(BeforeTool, "", nil)},
		{"shell without command", event(BeforeTool, "run_shell_command", map[string]any{"description": "x"})},
		{"write without content", event(BeforeTool, "write_file", map[string]any{"file_path": "a"})},
		{"bad input type", event(BeforeTool, "write_file", []int{1})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &standIns{tier: all(policy.Allow)}
			_, err := Run(context.Background(), strings.NewReader(tc.in), &bytes.Buffer{}, &bytes.Buffer{}, s.opener())
			if !errors.Is(err, adapter.ErrBadInput) {
				t.Fatalf("err = %v", err)
			}
			var stderr bytes.Buffer
			if code := Refuse(&bytes.Buffer{}, &stderr, err); code != 2 || !strings.Contains(stderr.String(), "refused") {
				t.Errorf("refusal %d %q", code, stderr.String())
			}
		})
	}
	// An unknown tool that the matcher let through is denied.
	s := &standIns{tier: all(policy.Allow)}
	if o := run(t, s, event(BeforeTool, "write_todos", map[string]any{})); o.Decision != Deny {
		t.Errorf("unknown tool %+v", o)
	}
}

// freshJailer marks which form the core asked for.
type freshJailer struct{}

func (freshJailer) Wrap(script, _ string) (string, error) { return "cwd-form " + script, nil }
func (freshJailer) WrapFresh(script string) (string, error) {
	return "jail -- bash -c '" + script + "'", nil
}

// An allowed run_shell_command is answered with its own arguments, the
// command replaced by the fresh-shell jailed form (Gemini CLI refuses a
// command substitution, which the other form holds); other tools are
// allowed as they came.
func TestAllowedShellIsRewrittenIntoTheJail(t *testing.T) {
	s := &standIns{tier: all(policy.Allow), jail: freshJailer{}}
	in := map[string]any{"command": "ls <a> & echo \"x\"", "description": "look", "dir_path": "sub", "is_background": false}
	var out bytes.Buffer
	if _, err := Run(context.Background(), strings.NewReader(event(BeforeTool, "run_shell_command", in)), &out, &bytes.Buffer{}, s.opener()); err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Decision           string
		HookSpecificOutput struct {
			HookEventName string
			ToolInput     map[string]any `json:"tool_input"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	want := map[string]any{"command": "jail -- bash -c 'ls <a> & echo \"x\"'", "description": "look", "dir_path": "sub", "is_background": false}
	if ans.Decision != Allow || ans.HookSpecificOutput.HookEventName != BeforeTool || !maps.Equal(ans.HookSpecificOutput.ToolInput, want) {
		t.Errorf("answer %s", out.String())
	}
	if strings.Contains(out.String(), `\u003c`) {
		t.Errorf("the answer escapes HTML: %s", out.String())
	}
	if o := run(t, s, event(BeforeTool, "read_file", map[string]any{"file_path": "a"})); o.Decision != Allow || o.HookSpecificOutput != nil {
		t.Errorf("a read: %+v", o)
	}
}

// When the jail refused a jailed command something, AfterTool appends to
// the result how to ask a human for it, naming the model's own command.
func TestAfterToolTellsHowToAskForWhatTheJailRefused(t *testing.T) {
	s := &standIns{tier: all(policy.Allow), jail: freshJailer{}}
	jailed := "'/s' run --quiet --shared-tmp --dir '/proj' -- bash -c 'touch /etc/x'"
	ev := func(output string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/proj", "hook_event_name": AfterTool,
			"tool_name": "run_shell_command", "tool_input": map[string]any{"command": jailed},
			"tool_response": map[string]any{"llmContent": output, "returnDisplay": output}})
		return string(b)
	}
	o := run(t, s, ev("Output: touch: cannot touch '/etc/x': Permission denied\nExit Code: 1"))
	if o.HookSpecificOutput == nil || o.HookSpecificOutput.HookEventName != AfterTool ||
		!strings.Contains(o.HookSpecificOutput.AdditionalContext, "sandbox request") ||
		!strings.Contains(o.HookSpecificOutput.AdditionalContext, "--script 'touch /etc/x'") {
		t.Errorf("answer %+v", o)
	}
	if o := run(t, s, ev("Output: fine")); o.HookSpecificOutput != nil {
		t.Errorf("nothing refused: %+v", o)
	}
}
