package gemini

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sandbox-dev/sandbox/connector/adapter"
)

// Input is one event on stdin. Unknown fields are ignored.
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Timestamp      string          `json:"timestamp"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	MCPContext     *MCPContext     `json:"mcp_context"`
	Source         string          `json:"source"`
}

// MCPContext describes the server of an MCP tool.
type MCPContext struct {
	ServerName string `json:"server_name"`
	ToolName   string `json:"tool_name"`
}

// Output is the answer on stdout.
type Output struct {
	Decision           string    `json:"decision,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	HookSpecificOutput *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is hookSpecificOutput.
type Specific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
	// ToolInput (BeforeTool) replaces the tool's arguments: Gemini CLI
	// rebuilds the call from it, so it holds every argument.
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
}

// ReadInput decodes one event, refusing oversize or malformed input and
// events without a name.
func ReadInput(r io.Reader) (*Input, error) {
	var in Input
	if err := adapter.ReadJSON(r, &in); err != nil {
		return nil, err
	}
	if in.HookEventName == "" {
		return nil, fmt.Errorf("hook event has no hook_event_name: %w", adapter.ErrBadInput)
	}
	return &in, nil
}
