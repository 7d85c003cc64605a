package hook

import (
	"encoding/json"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Action is what a tool call does, as far as the policy is concerned.
type Action int

const (
	// Shell runs Script with bash.
	Shell Action = iota + 1
	// Write creates or replaces Path with Content, or applies Edits.
	Write
	// Read reads Path, and searches Patterns (globs) under it.
	Read
	// Fetch reaches URL.
	Fetch
	// Search is a web search for Query.
	Search
	// MCPTool calls the MCP tool Tool with Args.
	MCPTool
	// Unknown is a tool the adapter does not recognise: it is denied.
	Unknown
)

// Call is one tool call, translated out of the agent's wire format.
type Call struct {
	Agent     string // "claude", "codex", ...
	Source    string // queue.SourceClaudeHook, ...
	Session   string
	ToolUseID string
	Cwd       string // absolute
	Tool      string // the agent's tool name, for messages
	Action    Action

	Script        string       // Shell
	Justification string       // Shell: the agent's description of why
	Paths         []string     // Write, Read: absolute paths
	Content       *string      // Write: the whole new content
	Edits         []queue.Edit // Write: replacements (Content nil)
	// Executable is false for a write the broker cannot carry out from
	// Content or Edits (a notebook cell edit, a patch that deletes or
	// moves a file); such a write is denied when it escalates.
	Executable bool
	Patterns   []string        // Read: glob patterns relative to Paths[0]
	URL        string          // Fetch
	Query      string          // Search
	Args       json.RawMessage // MCPTool
	// FreshShell (Shell): the agent runs every command in a fresh shell
	// (Gemini CLI), so nothing of one command's shell carries over to the
	// next, and the jailed form reports nothing back (FreshJailer).
	FreshShell bool
}

// Verdict is what the adapter tells the agent.
type Verdict int

const (
	// Allow lets the call run.
	Allow Verdict = iota + 1
	// Defer lets the agent's own permission rules decide.
	Defer
	// Deny stops the call; Reason is what the model reads (which, for an
	// approved escalation, is the real result).
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Defer:
		return "defer"
	case Deny:
		return "deny"
	}
	return "invalid"
}

// Outcome is the core's answer to one call.
type Outcome struct {
	Verdict   Verdict
	Reason    string
	Decision  policy.Decision
	RequestID string
	Result    *queue.Result // set when an escalation finished
	// Jailed is an allowed shell call's command rewritten to run in the
	// project jail ("" when the core does not jail); adapters that can
	// replace the tool's input run it instead of the original.
	Jailed string
}
