// Package windsurf connects Windsurf's Cascade agent to a sandbox folder:
// the wire format of Cascade hooks in .windsurf/hooks.json (the pre-hooks
// pre_run_command, pre_write_code, pre_read_code and pre_mcp_tool_use;
// exit code 2 blocks the action and the message goes on stderr),
// answered through the shared hook core, and the merge of those hooks
// into .windsurf/hooks.json that `sandbox init --windsurf` performs and
// `sandbox uninstall` reverts. Windsurf reads MCP servers only from the
// user's global mcp_config.json, which sandbox leaves alone.
package windsurf

import "github.com/sandbox-dev/sandbox/connector/queue"

// Name is the agent: `sandbox hook windsurf`.
const Name = "windsurf"

// Source names the requests Windsurf's hook writes.
const Source = queue.SourceWindsurfHook

// Hook events (agent_action_name) this package answers.
const (
	PreRunCommand = "pre_run_command"
	PreWriteCode  = "pre_write_code"
	PreReadCode   = "pre_read_code"
	PreMCPToolUse = "pre_mcp_tool_use"
	exitBlock     = 2
)
