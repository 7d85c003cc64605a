package cursor

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
)

// Run answers one event read from stdin on stdout and returns the exit
// code. On an error the caller must answer with Refuse: with failClosed
// set in hooks.json, Cursor blocks the action on a failed hook.
func Run(ctx context.Context, stdin io.Reader, stdout, _ io.Writer, open adapter.Opener) (int, error) {
	in, err := ReadInput(stdin)
	if err != nil {
		return 0, err
	}
	var root string
	if len(in.WorkspaceRoots) > 0 {
		root = in.WorkspaceRoots[0]
	}
	switch in.HookEventName {
	case BeforeShellExecution, BeforeMCPExecution, BeforeReadFile:
		cwd, err := adapter.Dir(in.Cwd, root, parent(in.FilePath))
		if err != nil {
			return 0, err
		}
		return 0, adapter.WithCore(ctx, open, cwd, true, func(core *hook.Core) error {
			return before(ctx, core, in, cwd, stdout)
		})
	case AfterFileEdit:
		cwd, err := adapter.Dir(parent(in.FilePath), root)
		if err != nil {
			return 0, err
		}
		return 0, adapter.WithCore(ctx, open, cwd, false, func(core *hook.Core) error {
			if err := core.PostToolUse(ctx, toCall(in, cwd), fmt.Sprintf("edited (%d edits)", len(in.Edits))); err != nil {
				return err
			}
			return adapter.WriteJSON(stdout, struct{}{})
		})
	}
	return 0, fmt.Errorf("%q: %w (sandbox answers %s, %s, %s and %s)", in.HookEventName, adapter.ErrBadInput,
		BeforeShellExecution, BeforeMCPExecution, BeforeReadFile, AfterFileEdit)
}

func before(ctx context.Context, core *hook.Core, in *Input, cwd string, w io.Writer) error {
	call := toCall(in, cwd)
	if call.Action == hook.Shell && strings.TrimSpace(call.Script) == "" {
		return fmt.Errorf("%s event has no command: %w", in.HookEventName, adapter.ErrBadInput)
	}
	out, err := core.PreToolUse(ctx, call)
	if err != nil {
		return err
	}
	return adapter.WriteJSON(w, answer(in.HookEventName, out))
}

// toCall translates an event into the core's terms.
func toCall(in *Input, cwd string) *hook.Call {
	call := &hook.Call{Agent: Name, Source: Source, Session: in.ConversationID, ToolUseID: in.GenerationID,
		Cwd: cwd, Tool: in.HookEventName}
	switch in.HookEventName {
	case BeforeShellExecution:
		call.Action, call.Script = hook.Shell, in.Command
	case BeforeMCPExecution:
		call.Action, call.Args = hook.MCPTool, toolArgs(in.ToolInput)
		call.Tool = adapter.MCPName(in.ServerName, in.ToolName)
	case BeforeReadFile:
		// Cursor passes no message back for a read, so an escalated read
		// is refused (a human's answer could not reach the model).
		call.Action, call.Paths = hook.Read, []string{adapter.Abs(cwd, in.FilePath)}
	case AfterFileEdit:
		call.Action, call.Paths = hook.Write, []string{adapter.Abs(cwd, in.FilePath)}
	}
	return call
}

// answer renders an outcome. An approved command's output, like any
// refusal, goes to the model in agent_message; the user sees its first
// line.
func answer(event string, out *hook.Outcome) Output {
	switch out.Verdict {
	case hook.Allow:
		return Output{Permission: Allow}
	case hook.Defer:
		return Output{Permission: Ask}
	}
	reason := out.Reason
	if reason == "" {
		reason = "sandbox: denied."
	}
	if event == BeforeReadFile {
		return Output{Permission: Deny}
	}
	return Output{Permission: Deny, UserMessage: adapter.FirstLine(reason), AgentMessage: reason}
}

// Refuse answers an event the hook could not decide: deny, with the
// reason, and exit code 2 (which Cursor also reads as a refusal).
func Refuse(stdout, stderr io.Writer, err error) int {
	msg := "sandbox: the hook could not decide, so this is refused: " + oneLine(err.Error())
	adapter.WriteJSON(stdout, Output{Permission: Deny, UserMessage: msg, AgentMessage: msg})
	fmt.Fprintln(stderr, msg)
	return 2
}

func parent(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Dir(p)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
