package toolhook

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestPlainDecisionIsTheJSON: the fast spelling of a plain answer is
// byte for byte what encoding/json writes, and anything else goes
// through encoding/json.
func TestPlainDecisionIsTheJSON(t *testing.T) {
	tests := []struct {
		name  string
		out   *Output
		plain bool
	}{
		{"allow", &Output{&Specific{HookEventName: PreToolUse, PermissionDecision: "allow"}}, true},
		{"ask", &Output{&Specific{HookEventName: PreToolUse, PermissionDecision: "ask"}}, true},
		{"no decision", &Output{&Specific{HookEventName: PostToolUse}}, true},
		{"reason", &Output{&Specific{HookEventName: PreToolUse, PermissionDecision: "deny", PermissionDecisionReason: "no"}}, false},
		{"context", &Output{&Specific{HookEventName: SessionStart, AdditionalContext: "x"}}, false},
		{"quote", &Output{&Specific{HookEventName: `Pre"x`, PermissionDecision: "allow"}}, false},
		{"html", &Output{&Specific{HookEventName: "Pre<x>", PermissionDecision: "allow"}}, false},
		{"unicode", &Output{&Specific{HookEventName: "Pré", PermissionDecision: "allow"}}, false},
		{"empty event", &Output{&Specific{PermissionDecision: "allow"}}, false},
		{"nothing", &Output{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.out); err != nil {
				t.Fatal(err)
			}
			line, ok := plainDecision(tc.out)
			if ok != tc.plain {
				t.Fatalf("plain = %v, want %v", ok, tc.plain)
			}
			if ok && line != want.String() {
				t.Errorf("plain spelling %q, encoding/json %q", line, want.String())
			}
			var got bytes.Buffer
			if err := WriteOutput(&got, tc.out); err != nil || got.String() != want.String() {
				t.Errorf("WriteOutput = %q, %v; want %q", got.String(), err, want.String())
			}
		})
	}
}
