package hook

import (
	"fmt"
	"strings"
)

// Record is one audit record the hook appends.
type Record struct {
	Event     string // hook.deny, hook.escalate, tool.done, tool.failed
	Agent     string
	Session   string
	ToolUseID string
	Tool      string
	Subject   string // the command, path(s), URL or tool
	Decision  string // allow, escalate or deny
	Reasons   string
	RequestID string
	// ContentHash is the request's content hash (escalations); the
	// recorder derives one from Tool and Subject when it is empty.
	ContentHash string
	Outcome     string // PostToolUse: how the call ended
}

// Subject is the one-line text of what a call acts on.
func Subject(call *Call) string {
	switch call.Action {
	case Shell:
		return call.Script
	case Write, Read:
		s := strings.Join(call.Paths, " ")
		if len(call.Patterns) > 0 {
			s += " " + strings.Join(call.Patterns, " ")
		}
		return s
	case Fetch:
		return call.URL
	case Search:
		return call.Query
	case MCPTool:
		return call.Tool
	}
	return fmt.Sprintf("%s (unknown tool)", call.Tool)
}
