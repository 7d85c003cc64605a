package policy

import "strings"

// compileTool compiles an MCP tool-name pattern such as mcp__github__*.
// Names are ASCII letters, digits, '_', '-' and '.'; '*' and '?' are
// wildcards.
func compileTool(pat string) (*wildcard, error) {
	if pat == "" || strings.Trim(pat, toolChars+"*?") != "" {
		return nil, errorf("MCP tool pattern %q may hold only letters, digits, _ - . * ?", pat)
	}
	return compileWildcard(pat)
}

const toolChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."

// validTool reports whether a tool name is made of the allowed characters.
func validTool(name string) bool {
	return name != "" && len(name) <= 256 && strings.Trim(name, toolChars) == ""
}
