package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/hooktest"
)

// A jailed Bash command whose output shows the jail refused a write gets
// a toolhook.PostToolUse answer whose additionalContext tells the model the exact
// `sandbox request` command; other output gets no answer, and Codex's
// profile none at all.
func TestPostToolUseTellsHowToAsk(t *testing.T) {
	open := func(_ context.Context, cwd string, _ bool) (*hook.Core, error) {
		return &hook.Core{Folder: folder.Folder{Root: cwd}, Policy: all(0), Audit: &hooktest.Audit{}, JailState: hook.JailWraps}, nil
	}
	post := func(stderr string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": "/proj", "hook_event_name": toolhook.PostToolUse,
			"tool_name": "Bash", "tool_input": map[string]any{"command": "echo hi > /etc/motd"}, "tool_use_id": "toolu_1",
			"tool_response": map[string]any{"stdout": "", "stderr": stderr, "interrupted": false}})
		return string(b)
	}
	run := func(p toolhook.Profile, in string) string {
		var out bytes.Buffer
		if err := toolhook.Run(context.Background(), p, strings.NewReader(in), &out, open); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	got := run(Claude, post("bash: line 1: /etc/motd: Read-only file system\n"))
	var o toolhook.Output
	if err := json.Unmarshal([]byte(got), &o); err != nil || o.HookSpecificOutput == nil {
		t.Fatalf("answer %q: %v", got, err)
	}
	s := o.HookSpecificOutput
	want := `sandbox request --reason 'needs a write to /etc/motd' --script 'echo hi > /etc/motd'`
	if s.HookEventName != toolhook.PostToolUse || !strings.Contains(s.AdditionalContext, want) {
		t.Errorf("answer %+v, want context with %s", s, want)
	}
	if got := run(Claude, post("make: *** Error 1\n")); got != "" {
		t.Errorf("an ordinary failure got %q", got)
	}
	codex := Claude
	codex.PostContext = false
	if got := run(codex, post("bash: line 1: /etc/motd: Read-only file system\n")); got != "" {
		t.Errorf("a profile without PostContext got %q", got)
	}
}
