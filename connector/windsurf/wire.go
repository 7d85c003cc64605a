package windsurf

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sandbox-dev/sandbox/connector/adapter"
)

// Input is one event on stdin. Unknown fields are ignored.
type Input struct {
	AgentActionName string   `json:"agent_action_name"`
	TrajectoryID    string   `json:"trajectory_id"`
	ExecutionID     string   `json:"execution_id"`
	Timestamp       string   `json:"timestamp"`
	ToolInfo        ToolInfo `json:"tool_info"`
}

// ToolInfo holds the fields of every event this package answers.
type ToolInfo struct {
	CommandLine      string          `json:"command_line"` // pre_run_command
	Cwd              string          `json:"cwd"`
	FilePath         string          `json:"file_path"` // pre_write_code, pre_read_code
	Edits            []Edit          `json:"edits"`
	MCPServerName    string          `json:"mcp_server_name"` // pre_mcp_tool_use
	MCPToolName      string          `json:"mcp_tool_name"`
	MCPToolArguments json.RawMessage `json:"mcp_tool_arguments"`
}

// Edit is one replacement of pre_write_code; a new file is one edit
// whose old_string is empty.
type Edit struct {
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

// ReadInput decodes one event, refusing oversize or malformed input and
// events without a name.
func ReadInput(r io.Reader) (*Input, error) {
	var in Input
	if err := adapter.ReadJSON(r, &in); err != nil {
		return nil, err
	}
	if in.AgentActionName == "" {
		return nil, fmt.Errorf("hook event has no agent_action_name: %w", adapter.ErrBadInput)
	}
	return &in, nil
}
