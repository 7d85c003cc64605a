package cursor

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
	f.Add(event(BeforeShellExecution, map[string]any{"command": "git push", "cwd": "/proj"}), uint8(0))
	f.Add(event(BeforeMCPExecution, map[string]any{"tool_name": "q", "tool_input": `{"a":1}`}), uint8(1))
	f.Add(event(BeforeReadFile, map[string]any{"file_path": "x"}), uint8(2))
	f.Add(event(AfterFileEdit, map[string]any{"file_path": "/p/a", "edits": []any{}}), uint8(0))
	f.Fuzz(func(t *testing.T, in string, tier uint8) {
		s := &standIns{}
		var out bytes.Buffer
		_, err := Run(context.Background(), strings.NewReader(in), &out, &bytes.Buffer{}, s.opener(policy.Tier(tier%3)+policy.Allow, approve))
		if err == nil && out.Len() > 0 && !json.Valid(out.Bytes()) {
			t.Fatalf("answer %q", out.String())
		}
	})
}
