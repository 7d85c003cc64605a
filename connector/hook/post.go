package hook

import (
	"context"
	"strings"
)

// PostToolUse appends the audit record of a call the agent ran; outcome
// says how it ended ("ok", "exit code 1", "interrupted", ...).
func (c *Core) PostToolUse(ctx context.Context, call *Call, outcome string) error {
	if c.Audit == nil {
		return nil
	}
	return c.Audit.Record(ctx, Record{
		Event: "tool.done", Agent: call.Agent, Session: call.Session, ToolUseID: call.ToolUseID,
		Tool: call.Tool, Subject: Subject(call), Outcome: outcome,
	})
}

// BriefOptions say what the session brief mentions.
type BriefOptions struct {
	// Justify tells the model how to justify a privileged call, in the
	// agent's own terms (e.g. Claude Code's Bash `description`).
	Justify string
	// MCP is set when the sandbox MCP server is installed for the agent.
	MCP bool
}

// Brief is the text given to the model when a session starts: how this
// folder works, in a few lines.
func (c *Core) Brief(o BriefOptions) string {
	lines := []string{
		"This project is guarded by sandbox (" + c.Folder.Dir() + "). Each tool call is checked against the folder's policy before it runs.",
		"- Privileged actions are not simply refused: they go to a human, and the call waits for the decision.",
		`- A tool call that comes back blocked with a text starting "sandbox: APPROVED and EXECUTED" or "sandbox: APPROVED and APPLIED" was approved and already carried out outside the agent: that text is the real result (output, exit code). Do not run it again.`,
		`- "sandbox: DENIED" is final: do not retry or work around it; ask the user. "sandbox: WAITING" means nobody has decided yet; retrying the same call joins the same request.`,
		"- Never write to .sandbox/: it is always refused.",
	}
	if o.Justify != "" {
		lines = append(lines, "- "+o.Justify)
	}
	if o.MCP {
		lines = append(lines, "- MCP tools: run_privileged asks for a command directly, check_request returns the result of a request id, sandbox_status shows what is pending.")
	}
	return strings.Join(lines, "\n")
}
