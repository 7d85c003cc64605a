package windsurf

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Run answers one event and returns the exit code: 0 lets the action
// run, 2 blocks it with the message on stderr (an approved command's
// output among them). On an error the caller must answer with Refuse.
func Run(ctx context.Context, stdin io.Reader, _, stderr io.Writer, open adapter.Opener) (int, error) {
	in, err := ReadInput(stdin)
	if err != nil {
		return 0, err
	}
	call, err := toCall(in)
	if err != nil {
		return 0, err
	}
	code := 0
	err = adapter.WithCore(ctx, open, call.Cwd, true, func(core *hook.Core) error {
		out, err := core.PreToolUse(ctx, call)
		if err != nil || out.Verdict != hook.Deny {
			return err
		}
		reason := out.Reason
		if reason == "" {
			reason = "sandbox: denied."
		}
		code = exitBlock
		_, err = fmt.Fprintln(stderr, reason)
		return err
	})
	return code, err
}

// toCall translates an event into the core's terms.
func toCall(in *Input) (*hook.Call, error) {
	ti := in.ToolInfo
	cwd, err := adapter.Dir(ti.Cwd, parent(ti.FilePath))
	if err != nil {
		return nil, err
	}
	call := &hook.Call{Agent: Name, Source: Source, Session: in.TrajectoryID, ToolUseID: in.ExecutionID,
		Cwd: cwd, Tool: in.AgentActionName}
	switch in.AgentActionName {
	case PreRunCommand:
		if strings.TrimSpace(ti.CommandLine) == "" {
			return nil, fmt.Errorf("%s event has no command_line: %w", PreRunCommand, adapter.ErrBadInput)
		}
		call.Action, call.Script = hook.Shell, ti.CommandLine
	case PreWriteCode:
		return call, mapWrite(ti, call)
	case PreReadCode:
		if ti.FilePath == "" {
			return nil, fmt.Errorf("%s event has no file_path: %w", PreReadCode, adapter.ErrBadInput)
		}
		// "Read" is the core's name for one file a human may approve.
		call.Action, call.Tool, call.Paths = hook.Read, "Read", []string{adapter.Abs(cwd, ti.FilePath)}
	case PreMCPToolUse:
		call.Action, call.Args = hook.MCPTool, ti.MCPToolArguments
		call.Tool = adapter.MCPName(ti.MCPServerName, ti.MCPToolName)
	default:
		return nil, fmt.Errorf("%q: %w (sandbox answers %s, %s, %s and %s)", in.AgentActionName, adapter.ErrBadInput,
			PreRunCommand, PreWriteCode, PreReadCode, PreMCPToolUse)
	}
	return call, nil
}

// mapWrite: a file that does not exist yet, written by one edit from
// nothing, is a whole new content; other edits are replacements.
func mapWrite(ti ToolInfo, call *hook.Call) error {
	if ti.FilePath == "" {
		return fmt.Errorf("%s event has no file_path: %w", PreWriteCode, adapter.ErrBadInput)
	}
	path := adapter.Abs(call.Cwd, ti.FilePath)
	call.Action, call.Paths = hook.Write, []string{path}
	if _, err := os.Lstat(path); os.IsNotExist(err) && len(ti.Edits) == 1 && ti.Edits[0].OldString == "" {
		content := ti.Edits[0].NewString
		call.Content, call.Executable = &content, true
		return nil
	}
	for _, e := range ti.Edits {
		call.Edits = append(call.Edits, queue.Edit{OldString: e.OldString, NewString: e.NewString})
	}
	call.Executable = len(call.Edits) > 0
	return nil
}

// Refuse answers an event the hook could not decide: exit code 2 and
// the reason on stderr.
func Refuse(_, stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "sandbox: the hook could not decide, so this is refused: "+strings.Join(strings.Fields(err.Error()), " "))
	return exitBlock
}

func parent(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Dir(p)
}
