package main

// The agent integrations register themselves with connector/install in
// their init functions; `sandbox init --AGENT` and `sandbox uninstall`
// find them there.
import (
	_ "github.com/sandbox-dev/sandbox/connector/claude"
	_ "github.com/sandbox-dev/sandbox/connector/codex"
	_ "github.com/sandbox-dev/sandbox/connector/cursor"
	_ "github.com/sandbox-dev/sandbox/connector/gemini"
	_ "github.com/sandbox-dev/sandbox/connector/mcpserver"
	_ "github.com/sandbox-dev/sandbox/connector/windsurf"
)
