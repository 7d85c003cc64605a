package main

// The agents the binary knows: each package registers its agent with
// connector/adapter in its init function, and `sandbox init --AGENT`,
// `sandbox uninstall` and `sandbox hook AGENT` find it there
// (docs/AGENTS.md, "Adding an agent").
import (
	_ "github.com/sandbox-dev/sandbox/connector/claude"
	_ "github.com/sandbox-dev/sandbox/connector/codex"
	_ "github.com/sandbox-dev/sandbox/connector/cursor"
	_ "github.com/sandbox-dev/sandbox/connector/gemini"
	_ "github.com/sandbox-dev/sandbox/connector/mcpserver"
	_ "github.com/sandbox-dev/sandbox/connector/windsurf"
)
