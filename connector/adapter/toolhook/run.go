package toolhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
)

// Run answers one hook event read from stdin, writing the answer (if any)
// to stdout. On any error the caller must exit 2 with the error as one
// line on stderr: that is the only failure mode these agents treat as a
// refusal. A panic is turned into an error here.
func Run(ctx context.Context, p Profile, stdin io.Reader, stdout io.Writer, open adapter.Opener) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bug: panic in sandbox hook %s: %v", p.Name, r)
		}
	}()
	in, err := ReadInput(stdin)
	if err != nil {
		return err
	}
	cwd, err := eventDir(in)
	if err != nil {
		return err
	}
	switch in.HookEventName {
	case PreToolUse, PostToolUse, SessionStart:
	default:
		return fmt.Errorf("%q: %w", in.HookEventName, ErrUnknownEvent)
	}
	core, err := open(ctx, cwd, in.HookEventName == PreToolUse)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := core.Close(); cerr != nil {
			core.Logger().Warn("closing", "err", cerr)
		}
	}()
	switch in.HookEventName {
	case PreToolUse:
		return pre(ctx, p, core, in, cwd, stdout)
	case PostToolUse:
		return post(ctx, p, core, in, cwd, stdout)
	}
	brief := p.Brief
	brief.MCP = brief.MCP || adapter.MCPInstalled(core, "mcp")
	return WriteOutput(stdout, &Output{HookSpecificOutput: &Specific{
		HookEventName: SessionStart, AdditionalContext: core.Brief(brief)}})
}

// eventDir is the event's working directory, which must be absolute.
func eventDir(in *Input) (string, error) {
	if in.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("hook event has no cwd: %w", err)
		}
		return wd, nil
	}
	if !filepath.IsAbs(in.Cwd) {
		return "", fmt.Errorf("hook event cwd %q is not absolute: %w", in.Cwd, adapter.ErrBadInput)
	}
	return filepath.Clean(in.Cwd), nil
}

func toCall(p Profile, in *Input, cwd string) (*hook.Call, error) {
	if in.ToolName == "" {
		return nil, fmt.Errorf("%s event has no tool_name: %w", in.HookEventName, adapter.ErrBadInput)
	}
	call := &hook.Call{Agent: p.Name, Source: p.Source, Session: in.SessionID,
		ToolUseID: in.ToolUseID, Cwd: cwd, Tool: in.ToolName}
	if err := p.MapTool(in.ToolName, in.ToolInput, call); err != nil {
		return nil, err
	}
	return call, nil
}

func pre(ctx context.Context, p Profile, core *hook.Core, in *Input, cwd string, w io.Writer) error {
	call, err := toCall(p, in, cwd)
	if err != nil {
		return err
	}
	out, err := core.PreToolUse(ctx, call)
	if err != nil {
		return err
	}
	ans, err := answer(p, out, in.ToolInput)
	if ans == nil || err != nil {
		return err
	}
	return WriteOutput(w, ans)
}

// answer renders an outcome; nil means print nothing. An allowed shell
// command the core jailed comes back as the agent's own input with the
// command replaced, so that the agent runs it in the project jail.
func answer(p Profile, out *hook.Outcome, input json.RawMessage) (*Output, error) {
	switch out.Verdict {
	case hook.Allow:
		if out.Jailed != "" && p.UpdatesInput {
			upd, err := withCommand(input, out.Jailed)
			if err != nil {
				return nil, err
			}
			return &Output{HookSpecificOutput: &Specific{HookEventName: PreToolUse, PermissionDecision: "allow",
				UpdatedInput: upd}}, nil
		}
		if !p.AllowJSON {
			return nil, nil
		}
		return &Output{HookSpecificOutput: &Specific{HookEventName: PreToolUse, PermissionDecision: "allow"}}, nil
	case hook.Defer:
		return nil, nil
	}
	reason := out.Reason
	if reason == "" {
		reason = "sandbox: denied."
	}
	return &Output{HookSpecificOutput: &Specific{HookEventName: PreToolUse, PermissionDecision: "deny",
		PermissionDecisionReason: reason}}, nil
}

// withCommand is the tool input with its command replaced, every other
// field (description, timeout, run_in_background, ...) as the agent sent
// it, encoded by hand: this is the answer to every allowed Bash call, and
// encoding/json's reflection over a map costs the hook ~0.1 ms.
func withCommand(input json.RawMessage, command string) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &fields); err != nil {
		return nil, fmt.Errorf("tool_input: %w", err)
	}
	keys := make([]string, 0, len(fields)+1)
	for k := range fields {
		if k != "command" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	b := append(make([]byte, 0, len(input)+len(command)+32), `{"command":`...)
	b = appendString(b, command)
	for _, k := range keys {
		b = append(appendString(append(b, ','), k), ':')
		if v := bytes.TrimSpace(fields[k]); bytes.IndexByte(v, '\n') < 0 {
			b = append(b, v...)
		} else { // the answer is one line
			var c bytes.Buffer
			json.Compact(&c, v)
			b = append(b, c.Bytes()...)
		}
	}
	return append(b, '}'), nil
}

// appendString appends s as a JSON string. s is valid UTF-8 (it comes
// from decoded JSON and sandbox's own ASCII), so only the quote, the
// backslash and control characters need escaping; <, > and & stay as
// they are, as the hook's encoder writes them.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func post(ctx context.Context, p Profile, core *hook.Core, in *Input, cwd string, stdout io.Writer) error {
	call, err := toCall(p, in, cwd)
	if err != nil {
		return err
	}
	if err := core.PostToolUse(ctx, call, responseOutcome(in.ToolResponse)); err != nil {
		return err
	}
	if !p.PostContext {
		return nil
	}
	if note := core.PostToolUseContext(call, responseText(in.ToolResponse)); note != "" {
		return WriteOutput(stdout, &Output{HookSpecificOutput: &Specific{HookEventName: PostToolUse, AdditionalContext: note}})
	}
	return nil
}

// responseText is a Bash tool_response's stdout and stderr ("" for other
// tools' responses).
func responseText(raw json.RawMessage) string {
	var r struct {
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	return r.Stdout + "\n" + r.Stderr
}

// responseOutcome summarises a tool_response for the audit log.
func responseOutcome(raw json.RawMessage) string {
	var r struct {
		Stdout      *string `json:"stdout"`
		Stderr      string  `json:"stderr"`
		Interrupted bool    `json:"interrupted"`
		ExitCode    *int    `json:"exit_code"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return "done"
	}
	var parts []string
	switch {
	case r.Interrupted:
		parts = append(parts, "interrupted")
	case r.ExitCode != nil:
		parts = append(parts, fmt.Sprintf("exit code %d", *r.ExitCode))
	default:
		parts = append(parts, "done")
	}
	if r.Stdout != nil {
		parts = append(parts, fmt.Sprintf("stdout %d bytes, stderr %d bytes", len(*r.Stdout), len(r.Stderr)))
	}
	return strings.Join(parts, "; ")
}
