// Package codex connects OpenAI's Codex CLI to a sandbox folder. Codex
// speaks the PreToolUse/PostToolUse/SessionStart hook protocol
// (connector/adapter/toolhook), so the hook itself is toolhook.Run with
// the Codex profile below, which holds every difference in one place:
// Codex's tool names (Bash, apply_patch, mcp__server__tool), no plain
// "allow" (an allowed shell command gets "allow" with updatedInput: the
// same command in the project jail), and the requests' source. The rest
// of the package merges the hooks and the MCP server into
// .codex/config.toml for `sandbox init --codex`.
package codex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/flatjson"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Name is the agent: `sandbox init --codex`, `sandbox hook codex`.
const Name = "codex"

func init() {
	adapter.Register(adapter.Agent{Name: Name, Wires: "wire Codex hooks and MCP into .codex/config.toml",
		Install: WithMCP{}, Hook: Codex.Hook(),
		Launch: &adapter.Launch{Command: "codex", Headless: []string{"exec"}}})
}

// Matcher is the PreToolUse/PostToolUse matcher for Codex's tool names.
const Matcher = "Bash|apply_patch|mcp__.*"

// Codex is Codex's profile. An allowed call gets no plain "allow" (not
// every Codex accepts one, and Codex runs the call when it cannot read a
// hook's answer); an allowed shell command is answered with "allow" and
// updatedInput, which Codex honours since openai/codex#20527 (0.171.0 is
// tested), so that it runs in the project jail.
var Codex = toolhook.Profile{
	Name:         Name,
	Source:       queue.SourceCodexHook,
	AllowJSON:    false,
	UpdatesInput: true,
	MapTool:      MapTool,
}

// MapTool translates a Codex tool call: Bash as a shell command (its
// description the justification), MCP tools by their full name,
// apply_patch as writes of every file the patch touches.
func MapTool(name string, raw json.RawMessage, call *hook.Call) error {
	switch {
	case name == "Bash":
		return mapShell(name, raw, call)
	case strings.HasPrefix(name, "mcp__"):
		call.Action, call.Args = hook.MCPTool, raw
		return nil
	case name == "apply_patch":
		return mapPatch(raw, call)
	}
	call.Action = hook.Unknown
	return nil
}

// shellInput is the tool_input of a shell call.
type shellInput struct {
	Command     *string `json:"command"`
	Description string  `json:"description"`
}

// mapShell reads a shell call: the fast path (connector/flatjson), else
// encoding/json.
func mapShell(name string, raw json.RawMessage, call *hook.Call) error {
	var in shellInput
	if len(raw) > 0 && !flatjson.Object(raw, in.flatFields()) {
		in = shellInput{}
		if err := json.Unmarshal(raw, &in); err != nil {
			return fmt.Errorf("%s tool_input: %v: %w", name, err, adapter.ErrBadInput)
		}
	}
	if in.Command == nil {
		return fmt.Errorf("%s tool_input has no command: %w", name, adapter.ErrBadInput)
	}
	call.Action, call.Script, call.Justification = hook.Shell, *in.Command, in.Description
	return nil
}

func (in *shellInput) flatFields() map[string]flatjson.Field {
	return map[string]flatjson.Field{"command": flatjson.StringPtr(&in.Command), "description": flatjson.String(&in.Description)}
}
