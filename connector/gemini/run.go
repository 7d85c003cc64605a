package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
)

// Brief tunes the session brief for Gemini CLI's terms.
var Brief = hook.BriefOptions{
	Justify: "Give every run_shell_command a clear `description`: it is the justification the human reads before approving.",
}

// Run answers one event read from stdin on stdout and returns the exit
// code. On an error the caller must answer with Refuse (exit 2, which
// Gemini CLI reads as a block): any other failure lets the call through.
func Run(ctx context.Context, stdin io.Reader, stdout, _ io.Writer, open adapter.Opener) (int, error) {
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
			// a jailed command the jail refused something: how to ask a
			// human instead, appended to the result the model reads
			if note := core.PostToolUseContext(call, responseText(in.ToolResponse)); note != "" {
				return adapter.WriteJSON(stdout, Output{HookSpecificOutput: &Specific{HookEventName: AfterTool, AdditionalContext: note}})
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
	ans, err := answer(out, in.ToolInput)
	if err != nil {
		return err
	}
	return adapter.WriteJSON(w, ans)
}

// answer renders an outcome: the reason reaches the model as the tool's
// error, so an approved command's output arrives in it. An allowed shell
// command the core jailed comes back as the tool's own arguments with the
// command replaced (hookSpecificOutput.tool_input), which Gemini CLI runs
// instead of the original.
func answer(out *hook.Outcome, input json.RawMessage) (Output, error) {
	switch out.Verdict {
	case hook.Allow:
		if out.Jailed == "" {
			return Output{Decision: Allow}, nil
		}
		upd, err := withCommand(input, out.Jailed)
		if err != nil {
			return Output{}, err
		}
		return Output{Decision: Allow, HookSpecificOutput: &Specific{HookEventName: BeforeTool, ToolInput: upd}}, nil
	case hook.Defer:
		return Output{}, nil
	}
	reason := out.Reason
	if reason == "" {
		reason = "sandbox: denied."
	}
	return Output{Decision: Deny, Reason: reason}, nil
}

// withCommand is a run_shell_command's arguments with command replaced,
// every other argument (description, dir_path, is_background, ...) as
// the model sent it.
func withCommand(input json.RawMessage, command string) (json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &args); err != nil {
		return nil, fmt.Errorf("run_shell_command tool_input: %v: %w", err, adapter.ErrBadInput)
	}
	var err error
	if args["command"], err = encode(command); err != nil {
		return nil, err
	}
	return encode(args)
}

// encode is v as JSON on one line, without HTML escaping (the answer's
// own encoder does not escape, and a RawMessage is kept as it is).
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// responseText is the text a tool_response hands the model (llmContent:
// a string, or parts with text).
func responseText(raw json.RawMessage) string {
	var r struct {
		LLMContent json.RawMessage `json:"llmContent"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(r.LLMContent, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(r.LLMContent, &parts)
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
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
