package mcpserver

import "encoding/json"

// Tool names.
const (
	ToolRun    = "run_privileged"
	ToolCheck  = "check_request"
	ToolStatus = "sandbox_status"
)

func (s *Server) addTools() {
	s.handlers = map[string]handler{}
	for _, t := range []struct {
		tool Tool
		h    handler
	}{{runTool, s.handleRun}, {checkTool, s.handleCheck}, {statusTool, s.handleStatus}} {
		s.tools = append(s.tools, t.tool)
		s.handlers[t.tool.Name] = t.h
	}
}

// toolList is what tools/list returns.
func (s *Server) toolList() []Tool { return s.tools }

var runTool = Tool{
	Name:  ToolRun,
	Title: "Run a privileged command (asks a human)",
	Description: "Run a shell command (bash) that needs privileges this agent does not hold, such as " +
		"`git push`, installing packages or changing files outside the project. The project's policy decides: " +
		"allowed commands run at once, forbidden ones are refused, and the rest go to a human, who approves or " +
		"denies; this call waits for the decision (wait_seconds) and returns the command's real output, exit " +
		"code and who approved it. The command runs once, outside the agent: do not run it again yourself. " +
		"If the result says pending, call check_request with its id later.",
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The bash command line to run, exactly as a human will see it."},
    "reason": {"type": "string", "description": "Why this command is needed: the human reads it before deciding."},
    "cwd": {"type": "string", "description": "Working directory: absolute, or relative to the project root; it must be inside the project (default: the project root)."},
    "wait_seconds": {"type": "integer", "minimum": 0, "maximum": 3600, "default": 120,
      "description": "How long to wait for a human's decision before returning status pending (default 120, at most 3600)."}
  },
  "required": ["command", "reason"],
  "additionalProperties": false
}`),
	OutputSchema: outcomeSchema,
	Annotations: Annotations{Title: "Run a privileged command (asks a human)",
		ReadOnlyHint: false, DestructiveHint: true, IdempotentHint: false, OpenWorldHint: true},
}

var checkTool = Tool{
	Name:  ToolCheck,
	Title: "Check an escalated request",
	Description: "Return the status of an escalated request by id (from run_privileged, or named in a " +
		"sandbox message), waiting up to wait_seconds for a decision; once decided, the same result as " +
		"run_privileged: the real output, exit code and who decided.",
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "The request id."},
    "wait_seconds": {"type": "integer", "minimum": 0, "maximum": 3600, "default": 120,
      "description": "How long to wait for a decision while the request is pending (default 120, at most 3600; 0 answers at once)."}
  },
  "required": ["id"],
  "additionalProperties": false
}`),
	OutputSchema: outcomeSchema,
	Annotations: Annotations{Title: "Check an escalated request",
		ReadOnlyHint: true, DestructiveHint: false, IdempotentHint: true, OpenWorldHint: false},
}

var statusTool = Tool{
	Name:  ToolStatus,
	Title: "Sandbox status",
	Description: "Describe this sandbox folder: the policy in force (rules per trigger and tier, the accepted " +
		"policy's hash, any change waiting for acceptance), pending requests, recent decisions, the audit log's " +
		"head and whether it verifies, and whether this server runs inside `sandbox run`'s jail.",
	InputSchema:  json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`),
	OutputSchema: statusSchema,
	Annotations: Annotations{Title: "Sandbox status",
		ReadOnlyHint: true, DestructiveHint: false, IdempotentHint: true, OpenWorldHint: false},
}

// outcomeSchema describes Outcome, the structuredContent of
// run_privileged and check_request.
var outcomeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "the request id (empty when the policy allowed the command and it ran at once)"},
    "status": {"type": "string", "enum": ["allowed", "approved", "denied", "pending", "withdrawn", "expired", "interrupted", "failed"]},
    "summary": {"type": "string", "description": "what happened, in words: who decided, the exit code, and whether it ran"},
    "exit_code": {"type": ["integer", "null"], "description": "null when nothing ran"},
    "stdout": {"type": "string"},
    "stderr": {"type": "string"},
    "truncated": {"type": "boolean", "description": "stdout or stderr was cut; log_path holds the whole output"},
    "log_path": {"type": "string"},
    "decided_by": {"type": "string"},
    "duration_ms": {"type": "integer"},
    "reasons": {"type": "array", "items": {"type": "string"}, "description": "the policy's reasons"},
    "message": {"type": "string", "description": "the human's reason, or why the request ended as it did"}
  },
  "required": ["id", "status", "summary", "exit_code", "stdout", "stderr", "truncated", "log_path"]
}`)

// statusSchema describes Status, the structuredContent of sandbox_status.
var statusSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "folder": {"type": "string"},
    "policy": {"type": "object"},
    "pending": {"type": "array", "items": {"type": "object"}},
    "recent": {"type": "array", "items": {"type": "object"}},
    "audit": {"type": "object"},
    "jail": {"type": "object"}
  },
  "required": ["folder", "policy", "pending", "recent", "audit", "jail"]
}`)
