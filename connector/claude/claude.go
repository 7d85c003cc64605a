// Package claude connects Claude Code to a sandbox folder: the hook wire
// format (PreToolUse, PostToolUse and SessionStart JSON on stdin and
// stdout, exit code 2 to fail closed), the mapping of Claude Code's tools
// to policy triggers, and the merge of sandbox's hooks into
// .claude/settings.json that `sandbox init --claude` performs and
// `sandbox uninstall` reverts. Agents with the same hook protocol (Codex)
// reuse it through a Profile that holds every difference in one place.
package claude

import (
	"encoding/json"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Profile is everything that differs between agents speaking this hook
// protocol.
type Profile struct {
	// Name is the agent ("claude", "codex"): `sandbox hook NAME`.
	Name string
	// Source names the requests this agent's hook writes.
	Source string
	// AllowJSON says whether an allowed call is answered with an explicit
	// "allow" decision; without it the hook prints nothing, which leaves
	// the agent's own rules in charge.
	AllowJSON bool
	// UpdatesInput says whether the agent honours updatedInput with an
	// "allow" decision: an allowed shell command then runs in the project
	// jail (hook.Outcome.Jailed). Without it the command runs as it came.
	UpdatesInput bool
	// MapTool translates one tool call into call (Action and payload).
	MapTool func(name string, input json.RawMessage, call *hook.Call) error
	// Brief tunes the SessionStart text.
	Brief hook.BriefOptions
	// PostContext says whether the agent reads additionalContext from a
	// PostToolUse answer: the hook then tells the model how to ask when
	// the jail refused part of a shell command.
	PostContext bool
}

// Claude is Claude Code's profile.
var Claude = Profile{
	Name:         "claude",
	Source:       queue.SourceClaudeHook,
	AllowJSON:    true,
	UpdatesInput: true,
	MapTool:      MapTool,
	PostContext:  true,
	Brief: hook.BriefOptions{
		Justify: "Give every Bash call a clear `description`: it is the justification the human reads before approving.",
	},
}
