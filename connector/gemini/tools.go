package gemini

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// toolInput holds every tool_input field the mapping reads; older and
// newer Gemini CLI versions name some of them differently.
type toolInput struct {
	Command        *string  `json:"command"`
	Description    string   `json:"description"`
	DirPath        string   `json:"dir_path"`
	Directory      string   `json:"directory"`
	Path           string   `json:"path"`
	FilePath       string   `json:"file_path"`
	AbsolutePath   string   `json:"absolute_path"`
	Content        *string  `json:"content"`
	OldString      *string  `json:"old_string"`
	NewString      *string  `json:"new_string"`
	AllowMultiple  bool     `json:"allow_multiple"`
	ExpectedCount  int      `json:"expected_replacements"`
	Pattern        string   `json:"pattern"`
	IncludePattern string   `json:"include_pattern"`
	Include        any      `json:"include"` // a glob (grep) or a list of them (read_many_files)
	Prompt         string   `json:"prompt"`
	Query          string   `json:"query"`
	Paths          []string `json:"paths"`
}

// MapTool translates a Gemini CLI tool call into call (which has Cwd).
// It returns the extra URLs of a web_fetch that names several: each is
// classified too.
func MapTool(name string, raw json.RawMessage, mcp *MCPContext, call *hook.Call) (more []string, err error) {
	if strings.HasPrefix(name, "mcp__") || mcp != nil && mcp.ServerName != "" {
		server := ""
		if mcp != nil {
			server = mcp.ServerName
		}
		call.Action, call.Tool, call.Args = hook.MCPTool, adapter.MCPName(server, name), raw
		return nil, nil
	}
	var in toolInput
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, fmt.Errorf("%s tool_input: %v: %w", name, err, adapter.ErrBadInput)
		}
	}
	switch name {
	case "run_shell_command":
		return nil, mapShell(&in, call)
	case "write_file", "replace":
		return nil, mapWrite(name, &in, call)
	case "read_file", "read_many_files", "glob", "grep_search", "search_file_content", "list_directory":
		mapRead(name, &in, call)
	case "web_fetch":
		return mapFetch(&in, call)
	case "google_web_search":
		call.Action, call.Query = hook.Search, in.Query
	default:
		call.Action = hook.Unknown
	}
	return nil, nil
}

func mapShell(in *toolInput, call *hook.Call) error {
	if in.Command == nil || strings.TrimSpace(*in.Command) == "" {
		return fmt.Errorf("run_shell_command tool_input has no command: %w", adapter.ErrBadInput)
	}
	call.Action, call.Script, call.Justification = hook.Shell, *in.Command, in.Description
	call.FreshShell = true // each run_shell_command is a bash of its own
	if d := first(in.DirPath, in.Directory); d != "" {
		call.Cwd = adapter.Abs(call.Cwd, d)
	}
	return nil
}

func mapWrite(name string, in *toolInput, call *hook.Call) error {
	path := first(in.FilePath, in.AbsolutePath)
	if path == "" {
		return fmt.Errorf("%s tool_input has no file_path: %w", name, adapter.ErrBadInput)
	}
	call.Action, call.Paths = hook.Write, []string{adapter.Abs(call.Cwd, path)}
	if name == "write_file" {
		if in.Content == nil {
			return fmt.Errorf("write_file tool_input has no content: %w", adapter.ErrBadInput)
		}
		call.Content, call.Executable = in.Content, true
		return nil
	}
	if in.OldString == nil || in.NewString == nil {
		return fmt.Errorf("replace tool_input lacks old_string or new_string: %w", adapter.ErrBadInput)
	}
	call.Edits = []queue.Edit{{OldString: *in.OldString, NewString: *in.NewString, ReplaceAll: in.AllowMultiple}}
	// "exactly N occurrences" is not something the broker can check.
	call.Executable = in.ExpectedCount <= 1
	return nil
}

// mapRead: read_file names one file, which a human may approve reading
// (the call's tool is then "Read", the core's name for a readable file);
// the others read directories and globs.
func mapRead(name string, in *toolInput, call *hook.Call) {
	call.Action = hook.Read
	if name == "read_file" {
		call.Tool = "Read"
	}
	for _, p := range append([]string{first(in.FilePath, in.AbsolutePath), first(in.DirPath, in.Directory, in.Path)}, in.Paths...) {
		if p != "" {
			call.Paths = append(call.Paths, adapter.Abs(call.Cwd, p))
		}
	}
	switch name {
	case "glob":
		call.Patterns = nonEmpty(in.Pattern)
	case "grep_search", "search_file_content":
		call.Patterns = nonEmpty(in.IncludePattern)
		if s, ok := in.Include.(string); ok {
			call.Patterns = append(call.Patterns, nonEmpty(s)...)
		}
	case "read_many_files":
		call.Patterns = globs(in.Include)
	}
}

// urlPattern finds the URLs a web_fetch prompt asks for.
var urlPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s<>"'` + "`" + `)\]]+`) })

func mapFetch(in *toolInput, call *hook.Call) ([]string, error) {
	urls := urlPattern().FindAllString(in.Prompt, 20)
	if len(urls) == 0 {
		call.Action = hook.Unknown // nothing to classify: refused
		return nil, nil
	}
	call.Action, call.URL = hook.Fetch, urls[0]
	return urls[1:], nil
}

func globs(v any) []string {
	switch x := v.(type) {
	case string:
		return nonEmpty(x)
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
