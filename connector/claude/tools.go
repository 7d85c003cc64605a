package claude

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/flatjson"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Matcher is the PreToolUse/PostToolUse matcher: every tool sandbox
// classifies. Claude Code matches it against the whole tool name.
const Matcher = "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|WebFetch|WebSearch|mcp__.*"

// toolInput holds every tool_input field the mapping reads.
type toolInput struct {
	Command      *string      `json:"command"`
	Description  string       `json:"description"`
	FilePath     string       `json:"file_path"`
	NotebookPath string       `json:"notebook_path"`
	Path         string       `json:"path"`
	Content      *string      `json:"content"`
	OldString    *string      `json:"old_string"`
	NewString    *string      `json:"new_string"`
	ReplaceAll   bool         `json:"replace_all"`
	Edits        []queue.Edit `json:"edits"`
	Pattern      string       `json:"pattern"`
	Glob         string       `json:"glob"`
	URL          string       `json:"url"`
	Query        string       `json:"query"`
}

// MapTool translates a Claude Code tool call into call.
func MapTool(name string, raw json.RawMessage, call *hook.Call) error {
	if strings.HasPrefix(name, "mcp__") {
		call.Action, call.Args = hook.MCPTool, raw
		return nil
	}
	var in toolInput
	if len(raw) > 0 {
		if err := in.decode(raw); err != nil {
			return fmt.Errorf("%s tool_input: %v: %w", name, err, adapter.ErrBadInput)
		}
	}
	switch name {
	case "Bash":
		if in.Command == nil {
			return fmt.Errorf("%s tool_input has no command: %w", name, adapter.ErrBadInput)
		}
		call.Action, call.Script, call.Justification = hook.Shell, *in.Command, in.Description
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return mapWrite(name, &in, call)
	case "Read", "Glob", "Grep":
		mapRead(name, &in, call)
	case "WebFetch":
		call.Action, call.URL = hook.Fetch, in.URL
	case "WebSearch":
		call.Action, call.Query = hook.Search, in.Query
	default:
		call.Action = hook.Unknown
	}
	return nil
}

func mapWrite(name string, in *toolInput, call *hook.Call) error {
	path := in.FilePath
	if name == "NotebookEdit" {
		path = in.NotebookPath
	}
	if path == "" {
		return fmt.Errorf("%s tool_input has no file path: %w", name, adapter.ErrBadInput)
	}
	call.Action, call.Paths = hook.Write, []string{adapter.Abs(call.Cwd, path)}
	switch name {
	case "Write":
		if in.Content == nil {
			return fmt.Errorf("%s tool_input has no content: %w", name, adapter.ErrBadInput)
		}
		call.Content, call.Executable = in.Content, true
	case "Edit":
		if in.OldString == nil || in.NewString == nil {
			return fmt.Errorf("%s tool_input lacks old_string or new_string: %w", name, adapter.ErrBadInput)
		}
		call.Edits = []queue.Edit{{OldString: *in.OldString, NewString: *in.NewString, ReplaceAll: in.ReplaceAll}}
		call.Executable = true
	case "MultiEdit":
		call.Edits, call.Executable = in.Edits, len(in.Edits) > 0
	}
	return nil
}

func mapRead(name string, in *toolInput, call *hook.Call) {
	call.Action = hook.Read
	if p := in.FilePath; p != "" {
		call.Paths = append(call.Paths, adapter.Abs(call.Cwd, p))
	}
	if p := in.Path; p != "" {
		call.Paths = append(call.Paths, adapter.Abs(call.Cwd, p))
	}
	switch {
	case name == "Glob" && in.Pattern != "":
		call.Patterns = []string{in.Pattern}
	case name == "Grep" && in.Glob != "":
		call.Patterns = []string{in.Glob}
	}
}

// decode decodes a tool_input: the fast path (connector/flatjson), else
// encoding/json.
func (in *toolInput) decode(raw []byte) error {
	if flatjson.Object(raw, in.flatFields()) {
		return nil
	}
	*in = toolInput{}
	return json.Unmarshal(raw, in)
}

// flatFields are the members the fast path decodes; an "edits" member
// (MultiEdit) is left to encoding/json.
func (in *toolInput) flatFields() map[string]flatjson.Field {
	return map[string]flatjson.Field{
		"command": flatjson.StringPtr(&in.Command), "description": flatjson.String(&in.Description),
		"file_path": flatjson.String(&in.FilePath), "notebook_path": flatjson.String(&in.NotebookPath),
		"path": flatjson.String(&in.Path), "content": flatjson.StringPtr(&in.Content),
		"old_string": flatjson.StringPtr(&in.OldString), "new_string": flatjson.StringPtr(&in.NewString),
		"replace_all": flatjson.Bool(&in.ReplaceAll), "edits": func(flatjson.Value) bool { return false },
		"pattern": flatjson.String(&in.Pattern), "glob": flatjson.String(&in.Glob),
		"url": flatjson.String(&in.URL), "query": flatjson.String(&in.Query),
	}
}
