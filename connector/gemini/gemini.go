// Package gemini connects Gemini CLI to a sandbox folder: the hook wire
// format of .gemini/settings.json (BeforeTool decides with "decision" and
// "reason", and runs an allowed shell command in the project jail by
// replacing its arguments with hookSpecificOutput.tool_input; AfterTool is
// audited; SessionStart briefs the model; exit code 2 blocks), the mapping of Gemini CLI's tools to policy triggers,
// answered through the shared hook core, and the merge of those hooks
// and of the sandbox MCP server (mcpServers) into .gemini/settings.json
// that `sandbox init --gemini` performs and `sandbox uninstall` reverts.
package gemini

import "github.com/sandbox-dev/sandbox/connector/queue"

// Name is the agent: `sandbox hook gemini`.
const Name = "gemini"

// Source names the requests Gemini CLI's hook writes.
const Source = queue.SourceGeminiHook

// Hook events this package answers.
const (
	BeforeTool   = "BeforeTool"
	AfterTool    = "AfterTool"
	SessionStart = "SessionStart"
)

// Matcher is the BeforeTool/AfterTool matcher, a regular expression over
// tool names: every tool sandbox classifies (built-in tools under their
// current and former names, and every MCP tool). Other tools (todos,
// memory, questions to the user) act on nothing the policy covers.
const Matcher = "^(run_shell_command|write_file|replace|read_file|read_many_files|glob|grep_search|search_file_content|list_directory|web_fetch|google_web_search|mcp__.*)$"

// Decisions in an answer.
const (
	Allow = "allow"
	Deny  = "deny"
)
