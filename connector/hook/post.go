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

// PostToolUseContext is what the model is told after a call ran, or "":
// when a jailed shell command's output (stdout and stderr) shows the jail
// refused a write or a connection, one sentence with the exact
// `sandbox request` command that asks a human for it.
func (c *Core) PostToolUseContext(call *Call, output string) string {
	return c.refusalNote(call, output)
}

// askLine is the brief's sentence on what to do when the jail refuses.
const askLine = `- When the jail refuses a write ("Read-only file system", "Permission denied" outside the project) or a connection (the proxy's "403 Forbidden by sandbox"), ask a human instead of working around it: sandbox request --reason 'WHY' --script 'COMMAND' runs COMMAND outside the jail once approved. Services on this machine's loopback (a database, a local model server) are reachable only when policy.yaml's network: section names them (127.0.0.1:PORT).`

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
	if l := c.jailLine(); l != "" {
		lines = append(lines, l)
	}
	if c.JailState == JailWraps || c.JailState == JailInside {
		lines = append(lines, askLine)
	}
	if c.Checkpoints != nil {
		lines = append(lines, "- Deletions and overwrites inside the project by allowed commands and edits are checkpointed first and recoverable: the user can bring files back with `sandbox restore --checkpoint ID` (`sandbox checkpoints` lists them).")
	}
	if l := c.approverLine(); l != "" {
		lines = append(lines, l)
	}
	if o.MCP {
		lines = append(lines, "- MCP tools: run_privileged asks for a command directly, check_request returns the result of a request id, sandbox_status shows what is pending.")
	}
	return strings.Join(lines, "\n")
}

// jailLine tells the model where its allowed commands run.
func (c *Core) jailLine() string {
	switch c.JailState {
	case JailWraps:
		return "- Allowed shell commands run inside the project jail (sandbox run): writes outside the project, secrets in your home and unapproved network destinations fail there; ask for them instead (they go to a human)."
	case JailInside:
		return "- This agent runs inside the project jail (sandbox run): every command is confined by the kernel; privileged commands still go to a human."
	case JailUnavailable:
		return "- The jail cannot be built on this machine, so allowed shell commands run with the user's rights, checked by the policy's analyzer alone (see `sandbox doctor`)."
	}
	return ""
}
