package codex

// The sandbox MCP server's entry in .codex/config.toml, beside the hooks:
// `sandbox init --codex` wires both: the hooks answer Codex's own tool
// calls, the MCP server gives the model a tool to ask for privileged work.
// This file wraps the hooks integration of config.go; the wrapper is what
// codex.go registers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/mcpserver"
)

// The MCP block sandbox appends is framed by these lines.
const (
	mcpBeginMarker = "# >>> sandbox MCP server (added by `sandbox init --codex`; `sandbox uninstall` removes this block)"
	mcpEndMarker   = "# <<< sandbox MCP server"
)

// WithMCP is the codex integration: the hooks, then the MCP server.
type WithMCP struct{}

// MCPChange is what WithMCP recorded: the hooks' change and the exact
// MCP block appended.
type MCPChange struct {
	Hooks install.Change `json:"hooks"`
	Block string         `json:"mcp_block,omitempty"`
}

// MCPBlock is the [mcp_servers.sandbox] table for the sandbox binary at
// exe serving root. Codex itself would ask before each call of an MCP
// tool; sandbox's tools ask a human themselves, so they are approved
// ("approve"), and a call may wait for that human up to the server's
// longest wait.
func MCPBlock(exe, root string) string {
	args := tomlString("mcp") + ", " + tomlString(root)
	if exe == install.PortableExe {
		args = tomlString("mcp")
	}
	return fmt.Sprintf("%s\n[mcp_servers.%s]\ncommand = %s\nargs = [%s]\ntool_timeout_sec = %d\ndefault_tools_approval_mode = \"approve\"\n%s\n",
		mcpBeginMarker, mcpserver.ServerName, tomlString(exe), args,
		int(mcpserver.ClientTimeout.Seconds()), mcpEndMarker)
}

// Install installs the hooks, then appends the MCP block once; when the
// block cannot be added the hooks are taken out again.
func (WithMCP) Install(env install.Env, prev install.Change) (install.Change, error) {
	old, err := decodeMCPChange(prev)
	if err != nil {
		return nil, err
	}
	hooks, err := Integration{}.Install(env, old.Hooks)
	if err != nil {
		return nil, err
	}
	block, err := installMCPBlock(env, old.Block)
	if err != nil {
		if !bytes.Equal(hooks, old.Hooks) {
			Integration{}.Uninstall(env, hooks)
		}
		return nil, err
	}
	if bytes.Equal(hooks, old.Hooks) && block == old.Block {
		return prev, nil
	}
	return json.Marshal(MCPChange{Hooks: hooks, Block: block})
}

// Uninstall removes the MCP block, then the hooks.
func (WithMCP) Uninstall(env install.Env, c install.Change) error {
	ch, err := decodeMCPChange(c)
	if err != nil {
		return err
	}
	if ch.Block != "" {
		path := filepath.Join(env.Folder.Root, ConfigFile)
		text, perm, missing, err := readConfig(path)
		if err != nil {
			return err
		}
		if out := removeMCPBlock(text, ch.Block); !missing && out != text {
			if err := atomicfile.WriteFile(path, []byte(out), perm); err != nil {
				return err
			}
		}
	}
	if len(ch.Hooks) == 0 {
		return nil
	}
	return Integration{}.Uninstall(env, ch.Hooks)
}

// decodeMCPChange reads a recorded change; one recorded by the hooks
// integration alone (no "hooks" member) is its hooks part.
func decodeMCPChange(c install.Change) (MCPChange, error) {
	var ch MCPChange
	if len(c) == 0 {
		return ch, nil
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(c, &probe); err != nil {
		return ch, fmt.Errorf("codex: recorded change: %w", err)
	}
	if _, ok := probe["hooks"]; !ok {
		return MCPChange{Hooks: c}, nil
	}
	if err := json.Unmarshal(c, &ch); err != nil {
		return ch, fmt.Errorf("codex: recorded change: %w", err)
	}
	return ch, nil
}

// installMCPBlock appends the block (replacing an older one of sandbox's)
// unless it is there, and returns the text appended.
func installMCPBlock(env install.Env, oldBlock string) (string, error) {
	path := filepath.Join(env.Folder.Root, ConfigFile)
	text, perm, _, err := readConfig(path)
	if err != nil {
		return "", err
	}
	want := MCPBlock(env.Exe, env.Folder.Root)
	if oldBlock != "" && strings.HasSuffix(oldBlock, want) && strings.Contains(text, oldBlock) {
		return oldBlock, nil
	}
	text = removeMCPBlock(text, oldBlock)
	block := separator(text) + want
	merged := text + block
	if err := validate(path, merged); err != nil {
		return "", fmt.Errorf("adding sandbox's MCP server would make it invalid (is there an [mcp_servers.%s] already?): %w",
			mcpserver.ServerName, err)
	}
	if err := atomicfile.WriteFile(path, []byte(merged), perm); err != nil {
		return "", err
	}
	return block, nil
}

// removeMCPBlock takes out the exact recorded block, or failing that (the
// user edited it) everything from its begin marker to its end marker.
func removeMCPBlock(text, block string) string {
	if block != "" {
		if i := strings.LastIndex(text, block); i >= 0 {
			return text[:i] + text[i+len(block):]
		}
	}
	i := strings.Index(text, mcpBeginMarker)
	j := strings.Index(text, mcpEndMarker)
	if i < 0 || j < i {
		return text
	}
	end := j + len(mcpEndMarker)
	if end < len(text) && text[end] == '\n' {
		end++
	}
	return text[:i] + text[end:]
}
