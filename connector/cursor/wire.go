package cursor

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sandbox-dev/sandbox/connector/adapter"
)

// Input is one event on stdin: the common fields and those of each
// event this package answers. Unknown fields are ignored.
type Input struct {
	HookEventName  string   `json:"hook_event_name"`
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	WorkspaceRoots []string `json:"workspace_roots"`
	CursorVersion  string   `json:"cursor_version"`

	// beforeShellExecution
	Command string `json:"command"`
	Cwd     string `json:"cwd"`

	// beforeMCPExecution: the tool input is an object, or (some
	// versions) the object's JSON text in a string; url or command names
	// the server.
	ToolName   string          `json:"tool_name"`
	ToolInput  json.RawMessage `json:"tool_input"`
	ServerName string          `json:"server_name"`
	URL        string          `json:"url"`

	// beforeReadFile, afterFileEdit
	FilePath string `json:"file_path"`
	Edits    []Edit `json:"edits"`
}

// Edit is one edit reported by afterFileEdit.
type Edit struct {
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

// Output is the answer on stdout. beforeReadFile reads only Permission.
type Output struct {
	Permission   string `json:"permission,omitempty"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
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

// toolArgs is the MCP tool input as JSON: the object, or the object a
// JSON string holds.
func toolArgs(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return raw
}
