package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/claude"
	"github.com/sandbox-dev/sandbox/connector/hook"
)

// Brief tunes the session brief for Gemini CLI's terms.
var Brief = hook.BriefOptions{
	Justify: "Give every run_shell_command a clear `description`: it is the justification the human reads before approving.",
}

// Run answers one event read from stdin on stdout and returns the exit
// code. On an error the caller must answer with Refuse (exit 2, which
// Gemini CLI reads as a block): any other failure lets the call through.
func Run(ctx context.Context, stdin io.Reader, stdout, _ io.Writer, open claude.Opener) (int, error) {
	in, err := ReadInput(stdin)
	if err != nil {
		return 0, err
	}
	cwd, err := adapter.Dir(in.Cwd)
	if err != nil {
		return 0, err
	}
	switch in.HookEventName {
	case BeforeTool:
		return 0, adapter.WithCore(ctx, open, cwd, true, func(core *hook.Core) error {
			return before(ctx, core, in, cwd, stdout)
		})
	case AfterTool:
		return 0, adapter.WithCore(ctx, open, cwd, false, func(core *hook.Core) error {
			call, _, err := toCall(in, cwd)
			if err != nil {
				return err
			}
			if err := core.PostToolUse(ctx, call, responseOutcome(in.ToolResponse)); err != nil {
				return err
			}
			return adapter.WriteJSON(stdout, struct{}{})
		})
	case SessionStart:
		return 0, adapter.WithCore(ctx, open, cwd, false, func(core *hook.Core) error {
			brief := Brief
			brief.MCP = adapter.MCPInstalled(core, Name, "mcp")
			return adapter.WriteJSON(stdout, Output{HookSpecificOutput: &Specific{HookEventName: SessionStart,
				AdditionalContext: core.Brief(brief)}})
		})
	}
	return 0, fmt.Errorf("%q: %w (sandbox answers %s, %s and %s)", in.HookEventName, adapter.ErrBadInput, BeforeTool, AfterTool, SessionStart)
}

func toCall(in *Input, cwd string) (*hook.Call, []string, error) {
	if in.ToolName == "" {
		return nil, nil, fmt.Errorf("%s event has no tool_name: %w", in.HookEventName, adapter.ErrBadInput)
	}
	call := &hook.Call{Agent: Name, Source: Source, Session: in.SessionID, Cwd: cwd, Tool: in.ToolName}
	more, err := MapTool(in.ToolName, in.ToolInput, in.MCPContext, call)
	return call, more, err
}

// before decides a tool call; a web_fetch of several URLs is decided URL
// by URL, and the first that is not allowed answers.
func before(ctx context.Context, core *hook.Core, in *Input, cwd string, w io.Writer) error {
	call, more, err := toCall(in, cwd)
	if err != nil {
		return err
	}
	out, err := core.PreToolUse(ctx, call)
	for _, u := range more {
		if err != nil || out.Verdict == hook.Deny {
			break
		}
		next := *call
		next.URL = u
		out, err = core.PreToolUse(ctx, &next)
	}
	if err != nil {
		return err
	}
	return adapter.WriteJSON(w, answer(out))
}

// answer renders an outcome: the reason reaches the model as the tool's
// error, so an approved command's output arrives in it.
func answer(out *hook.Outcome) Output {
	switch out.Verdict {
	case hook.Allow:
		return Output{Decision: Allow}
	case hook.Defer:
		return Output{}
	}
	reason := out.Reason
	if reason == "" {
		reason = "sandbox: denied."
	}
	return Output{Decision: Deny, Reason: reason}
}

// responseOutcome summarises a tool_response for the audit log.
func responseOutcome(raw json.RawMessage) string {
	var r struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return "done"
	}
	if r.Error != nil {
		return "failed"
	}
	return "done"
}

// Refuse answers an event the hook could not decide: exit code 2, the
// reason on stderr (Gemini CLI hands it to the model).
func Refuse(_, stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "sandbox: the hook could not decide, so this is refused: "+strings.Join(strings.Fields(err.Error()), " "))
	return 2
}
