package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// FuzzRun: any event either fails (the caller refuses) or is answered
// with one JSON object; nothing panics.
func FuzzRun(f *testing.F) {
	f.Add(event(BeforeTool, "run_shell_command", map[string]any{"command": "ls"}), uint8(0))
	f.Add(event(BeforeTool, "web_fetch", map[string]any{"prompt": "https://a.example https://b.example"}), uint8(2))
	f.Add(event(BeforeTool, "read_many_files", map[string]any{"include": []any{"../x", 3}}), uint8(1))
	f.Add(event(AfterTool, "replace", map[string]any{"file_path": "a", "old_string": "x", "new_string": "y"}), uint8(0))
	f.Fuzz(func(t *testing.T, in string, tier uint8) {
		s := &standIns{tier: all(policy.Tier(tier%3) + policy.Allow)}
		var out bytes.Buffer
		_, err := Run(context.Background(), strings.NewReader(in), &out, &bytes.Buffer{}, s.opener())
		if err == nil && !json.Valid(out.Bytes()) {
			t.Fatalf("answer %q", out.String())
		}
	})
}
