package mcpserver

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// Tool names.
const (
	ToolRun    = "run_privileged"
	ToolCheck  = "check_request"
	ToolStatus = "sandbox_status"
)

func (s *Server) addTools() {
	s.mcp.AddTool(runTool(), s.handleRun)
	s.mcp.AddTool(checkTool(), s.handleCheck)
	s.mcp.AddTool(statusTool(), s.handleStatus)
}

func runTool() mcp.Tool {
	return mcp.NewTool(ToolRun,
		mcp.WithDescription("Run a shell command (bash) that needs privileges this agent does not hold, such as "+
			"`git push`, installing packages or changing files outside the project. The project's policy decides: "+
			"allowed commands run at once, forbidden ones are refused, and the rest go to a human, who approves or "+
			"denies; this call waits for the decision (wait_seconds) and returns the command's real output, exit "+
			"code and who approved it. The command runs once, outside the agent: do not run it again yourself. "+
			"If the result says pending, call check_request with its id later."),
		mcp.WithString("command", mcp.Required(), mcp.Description("The bash command line to run, exactly as a human will see it.")),
		mcp.WithString("reason", mcp.Required(), mcp.Description("Why this command is needed: the human reads it before deciding.")),
		mcp.WithString("cwd", mcp.Description("Working directory: absolute, or relative to the project root; it must be inside the project (default: the project root).")),
		mcp.WithInteger("wait_seconds", mcp.Min(0), mcp.Max(MaxWaitSeconds), mcp.DefaultNumber(DefaultWaitSeconds),
			mcp.Description("How long to wait for a human's decision before returning status pending (default 120, at most 3600).")),
		mcp.WithTitleAnnotation("Run a privileged command (asks a human)"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
		mcp.WithRawOutputSchema(outcomeSchema),
	)
}

func checkTool() mcp.Tool {
	return mcp.NewTool(ToolCheck,
		mcp.WithDescription("Return the status of an escalated request by id (from run_privileged, or named in a "+
			"sandbox message), waiting up to wait_seconds for a decision; once decided, the same result as "+
			"run_privileged: the real output, exit code and who decided."),
		mcp.WithString("id", mcp.Required(), mcp.Description("The request id.")),
		mcp.WithInteger("wait_seconds", mcp.Min(0), mcp.Max(MaxWaitSeconds), mcp.DefaultNumber(DefaultWaitSeconds),
			mcp.Description("How long to wait for a decision while the request is pending (default 120, at most 3600; 0 answers at once).")),
		mcp.WithTitleAnnotation("Check an escalated request"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithRawOutputSchema(outcomeSchema),
	)
}

func statusTool() mcp.Tool {
	return mcp.NewTool(ToolStatus,
		mcp.WithDescription("Describe this sandbox folder: the policy in force (rules per trigger and tier, the accepted "+
			"policy's hash, any change waiting for acceptance), pending requests, recent decisions, the audit log's "+
			"head and whether it verifies, and whether this server runs inside `sandbox run`'s jail."),
		mcp.WithTitleAnnotation("Sandbox status"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithRawOutputSchema(statusSchema),
	)
}

// outcomeSchema describes Outcome, the structuredContent of
// run_privileged and check_request.
var outcomeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "the request id (empty when the policy allowed the command and it ran at once)"},
    "status": {"type": "string", "enum": ["allowed", "approved", "denied", "pending", "withdrawn", "expired", "interrupted", "failed"]},
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
  "required": ["id", "status", "exit_code", "stdout", "stderr", "truncated", "log_path"]
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
