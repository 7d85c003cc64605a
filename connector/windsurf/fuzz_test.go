package windsurf

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// FuzzRun: any event either fails (the caller refuses) or exits 0 with
// nothing on stderr, or 2 with a message; nothing panics.
func FuzzRun(f *testing.F) {
	f.Add(event(PreRunCommand, map[string]any{"command_line": "git push", "cwd": "/proj"}), uint8(0))
	f.Add(event(PreWriteCode, map[string]any{"file_path": "/nonexistent/a", "edits": []any{map[string]any{"old_string": "", "new_string": "x"}}}), uint8(1))
	f.Add(event(PreMCPToolUse, map[string]any{"mcp_server_name": "s", "mcp_tool_name": "t"}), uint8(2))
	f.Fuzz(func(t *testing.T, in string, tier uint8) {
		var stderr bytes.Buffer
		code, err := Run(context.Background(), strings.NewReader(in), &bytes.Buffer{}, &stderr, (&standIns{}).opener(policy.Tier(tier%3)+policy.Allow))
		if err == nil && (code == 0) != (stderr.Len() == 0) {
			t.Fatalf("code %d, stderr %q", code, stderr.String())
		}
	})
}
