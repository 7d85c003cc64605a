// Package claude connects Claude Code to a sandbox folder: its profile of
// the PreToolUse/PostToolUse/SessionStart hook protocol
// (connector/adapter/toolhook), the mapping of Claude Code's tools to
// policy triggers, and the merge of sandbox's hooks into
// .claude/settings.json that `sandbox init --claude` performs and
// `sandbox uninstall` reverts.
package claude

import (
	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Name is the agent: `sandbox init --claude`, `sandbox hook claude`.
const Name = "claude"

func init() {
	adapter.Register(adapter.Agent{Name: Name, Wires: "wire Claude Code hooks into .claude/settings.json",
		Install: Integration{}, Hook: Claude.Hook(),
		Launch: &adapter.Launch{Command: "claude", Headless: []string{"-p"}, Resume: []string{"--continue"}}})
}

// Claude is Claude Code's profile.
var Claude = toolhook.Profile{
	Name:         Name,
	Source:       queue.SourceClaudeHook,
	AllowJSON:    true,
	UpdatesInput: true,
	MapTool:      MapTool,
	PostContext:  true,
	Brief: hook.BriefOptions{
		Justify: "Give every Bash call a clear `description`: it is the justification the human reads before approving.",
	},
}
