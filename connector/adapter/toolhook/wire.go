package toolhook

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/flatjson"
)

// Hook events this package answers.
const (
	PreToolUse   = "PreToolUse"
	PostToolUse  = "PostToolUse"
	SessionStart = "SessionStart"
)

// Input is the event on stdin. Unknown fields are ignored.
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	AgentID        string          `json:"agent_id"`
	Source         string          `json:"source"`
}

// Output is the JSON answer on stdout.
type Output struct {
	HookSpecificOutput *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is hookSpecificOutput.
type Specific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	// UpdatedInput replaces the tool's input (with "allow"): the whole
	// input, every field the agent sent kept, the command jailed.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
}

// ReadInput decodes one event, refusing oversize or malformed input and
// events without a name.
func ReadInput(r io.Reader) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, adapter.MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading the hook event from stdin: %w", err)
	}
	if len(data) > adapter.MaxInput {
		return nil, fmt.Errorf("hook event larger than %d bytes: %w", adapter.MaxInput, adapter.ErrBadInput)
	}
	in, err := decodeInput(data)
	if err != nil {
		return nil, fmt.Errorf("hook event is not valid JSON (%v): %w", err, adapter.ErrBadInput)
	}
	if in.HookEventName == "" {
		return nil, fmt.Errorf("hook event has no hook_event_name: %w", adapter.ErrBadInput)
	}
	return &in, nil
}

// WriteOutput encodes out on one line, without HTML escaping.
func WriteOutput(w io.Writer, out *Output) error {
	if line, ok := plainDecision(out); ok {
		if _, err := io.WriteString(w, line); err != nil {
			return fmt.Errorf("writing the hook answer: %w", err)
		}
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing the hook answer: %w", err)
	}
	return nil
}

// plainDecision spells the common answer (an event name and a decision
// of plain letters, no reason or context) as encoding/json would, without
// its reflection: an allowed call's hook answers this on every tool call.
func plainDecision(out *Output) (string, bool) {
	s := out.HookSpecificOutput
	if s == nil || s.PermissionDecisionReason != "" || s.AdditionalContext != "" ||
		!isLetters(s.HookEventName) || s.PermissionDecision != "" && !isLetters(s.PermissionDecision) {
		return "", false
	}
	line := `{"hookSpecificOutput":{"hookEventName":"` + s.HookEventName + `"`
	if s.PermissionDecision != "" {
		line += `,"permissionDecision":"` + s.PermissionDecision + `"`
	}
	if s.UpdatedInput != nil { // built by withCommand: compact, valid JSON
		line += `,"updatedInput":` + string(s.UpdatedInput)
	}
	return line + "}}\n", true
}

// isLetters reports a non-empty string of ASCII letters.
func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// decodeInput decodes an event: the fast path (connector/flatjson), else
// encoding/json.
func decodeInput(data []byte) (Input, error) {
	var in Input
	if flatjson.Object(data, in.flatFields()) {
		return in, nil
	}
	in = Input{}
	err := json.Unmarshal(data, &in)
	return in, err
}

func (in *Input) flatFields() map[string]flatjson.Field {
	return map[string]flatjson.Field{
		"session_id": flatjson.String(&in.SessionID), "transcript_path": flatjson.String(&in.TranscriptPath),
		"cwd": flatjson.String(&in.Cwd), "permission_mode": flatjson.String(&in.PermissionMode),
		"hook_event_name": flatjson.String(&in.HookEventName), "tool_name": flatjson.String(&in.ToolName),
		"tool_input": flatjson.Raw((*[]byte)(&in.ToolInput)), "tool_use_id": flatjson.String(&in.ToolUseID),
		"tool_response": flatjson.Raw((*[]byte)(&in.ToolResponse)), "agent_id": flatjson.String(&in.AgentID),
		"source": flatjson.String(&in.Source),
	}
}
