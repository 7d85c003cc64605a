// Package cursor connects Cursor's agent to a sandbox folder: the hook
// wire format of .cursor/hooks.json (version 1; beforeShellExecution,
// beforeMCPExecution and beforeReadFile decide, afterFileEdit is
// audited), answered through the shared hook core, and the merge of
// those hooks and of the sandbox MCP server into .cursor/hooks.json and
// .cursor/mcp.json that `sandbox init --cursor` performs and
// `sandbox uninstall` reverts.
package cursor

import (
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Name is the agent: `sandbox hook cursor`.
const Name = "cursor"

// Source names the requests Cursor's hook writes.
const Source = queue.SourceCursorHook

// Hook events this package answers.
const (
	BeforeShellExecution = "beforeShellExecution"
	BeforeMCPExecution   = "beforeMCPExecution"
	BeforeReadFile       = "beforeReadFile"
	AfterFileEdit        = "afterFileEdit"
)

// Permissions in an answer.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)
