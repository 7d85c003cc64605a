// Package codex connects OpenAI's Codex CLI to a sandbox folder. Codex
// speaks Claude Code's hook protocol, so the hook itself is
// claude.Run with the Codex profile below, which holds every difference
// in one place: Codex's tool names (Bash, apply_patch, mcp__server__tool),
// no plain "allow" (an allowed shell command gets "allow" with
// updatedInput: the same command in the project jail), and the requests'
// source. The rest of the package merges the hooks into
// .codex/config.toml for `sandbox init --codex`.
package codex

import (
	"encoding/json"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/claude"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

func init() { install.Register(Integration{}) }

// Matcher is the PreToolUse/PostToolUse matcher for Codex's tool names.
const Matcher = "Bash|apply_patch|mcp__.*"

// Codex is Codex's profile. An allowed call gets no plain "allow" (not
// every Codex accepts one, and Codex runs the call when it cannot read a
// hook's answer); an allowed shell command is answered with "allow" and
// updatedInput, which Codex honours since openai/codex#20527 (0.171.0 is
// tested), so that it runs in the project jail.
var Codex = claude.Profile{
	Name:         "codex",
	Source:       queue.SourceCodexHook,
	AllowJSON:    false,
	UpdatesInput: true,
	MapTool:      MapTool,
}

// MapTool translates a Codex tool call: Bash and MCP tools as Claude
// Code's, apply_patch as writes of every file the patch touches.
func MapTool(name string, raw json.RawMessage, call *hook.Call) error {
	switch {
	case name == "Bash", strings.HasPrefix(name, "mcp__"):
		return claude.MapTool(name, raw, call)
	case name == "apply_patch":
		return mapPatch(raw, call)
	}
	call.Action = hook.Unknown
	return nil
}
