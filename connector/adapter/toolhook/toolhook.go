// Package toolhook is the hook protocol Claude Code defined and Codex
// adopted: PreToolUse, PostToolUse and SessionStart events as JSON on
// stdin, hookSpecificOutput on stdout, exit code 2 to fail closed. Each
// agent that speaks it is a Profile holding every difference in one place
// (its tool names, whether it accepts a plain "allow" or replaced input,
// its brief); Run answers one event for a profile.
package toolhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
)

// ErrUnknownEvent is an event this hook is not installed for. Test with
// errors.Is; an event that cannot be understood is adapter.ErrBadInput.
var ErrUnknownEvent = errors.New("unknown hook event")

// Profile is everything that differs between agents speaking this hook
// protocol.
type Profile struct {
	// Name is the agent ("claude", "codex"): `sandbox hook NAME`.
	Name string
	// Source names the requests this agent's hook writes.
	Source string
	// AllowJSON says whether an allowed call is answered with an explicit
	// "allow" decision; without it the hook prints nothing, which leaves
	// the agent's own rules in charge.
	AllowJSON bool
	// UpdatesInput says whether the agent honours updatedInput with an
	// "allow" decision: an allowed shell command then runs in the project
	// jail (hook.Outcome.Jailed). Without it the command runs as it came.
	UpdatesInput bool
	// MapTool translates one tool call into call (Action and payload).
	MapTool func(name string, input json.RawMessage, call *hook.Call) error
	// Brief tunes the SessionStart text.
	Brief hook.BriefOptions
	// PostContext says whether the agent reads additionalContext from a
	// PostToolUse answer: the hook then tells the model how to ask when
	// the jail refused part of a shell command.
	PostContext bool
}

// Hook is the profile's `sandbox hook NAME`, for adapter.Agent.
func (p Profile) Hook() *adapter.Hook {
	return &adapter.Hook{
		Run: func(ctx context.Context, stdin io.Reader, stdout, _ io.Writer, open adapter.Opener) (int, error) {
			return 0, Run(ctx, p, stdin, stdout, open)
		},
		Refuse: Refuse,
		Jails:  p.UpdatesInput,
	}
}

// Refuse answers an event the hook could not decide: exit code 2, the
// only failure these agents treat as a refusal, with the error as one
// line on stderr.
func Refuse(_, stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "sandbox: hook: %s\n", oneLine(err.Error()))
	return 2
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
