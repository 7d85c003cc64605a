// Package hook is the agent-independent core of every hook adapter
// (Claude Code, Codex, Cursor, Gemini CLI, Windsurf, ...): it takes
// one tool call, classifies it with the folder's policy, and answers allow
// or deny; an escalation becomes a request on the folder bus, and the hook
// waits for the human and turns the outcome (the approved command's real
// output, a write the broker applied, the human's refusal, or "still
// pending") into text the model cannot misread. Adapters own the wire
// formats; nothing agent-specific lives here.
package hook

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Wait bounds. The agent's own hook timeout (installed by the adapters) is
// InstalledTimeout, longer than any wait the hook allows itself, so the
// hook always answers before the agent gives up on it.
const (
	DefaultWait      = 10 * time.Minute
	MaxWait          = 14 * time.Minute
	InstalledTimeout = 15 * time.Minute
)

// Classifier is the policy engine as the hook uses it.
type Classifier interface {
	Shell(script, cwd string) policy.Decision
	Write(path, cwd string) policy.Decision
	Read(path, cwd string) policy.Decision
	NetworkURL(rawURL string) policy.Decision
	WebSearch(query string) policy.Decision
	MCP(tool string) policy.Decision
}

// Queue is the escalation queue as the hook uses it.
type Queue interface {
	Submit(ctx context.Context, r *queue.Request) (id string, joined bool, err error)
	Wait(ctx context.Context, id string) (*queue.Result, error)
}

// Recorder appends audit records. A failed append refuses the action.
type Recorder interface {
	Record(ctx context.Context, r Record) error
}

// Originals saves a file's content before the agent changes it.
type Originals interface {
	Save(path, session, toolUseID string) error
}

// Core answers tool calls for one project folder. Its dependencies are
// opened lazily by the adapter's factory, so that a call that needs no
// queue never opens one.
type Core struct {
	Folder    folder.Folder
	Policy    Classifier
	Queue     func() (Queue, error)
	Audit     Recorder
	Originals Originals
	// Checkpoints, when set, keeps what allowed calls delete or overwrite.
	Checkpoints Checkpointer
	// Jail, when set, rewrites allowed shell commands into the project
	// jail (Outcome.Jailed); JailState says which mode the core is in.
	Jail      Jailer
	JailState JailState
	Options   Options
	Log       *slog.Logger
	// closers run at Close, newest first.
	closers []func() error
}

// OnClose registers f to run when the core is closed.
func (c *Core) OnClose(f func() error) { c.closers = append(c.closers, f) }

// Close releases whatever the core's dependencies opened.
func (c *Core) Close() error {
	var errs []error
	for i := len(c.closers) - 1; i >= 0; i-- {
		errs = append(errs, c.closers[i]())
	}
	c.closers = nil
	return errors.Join(errs...)
}

// Options tune the core.
type Options struct {
	// Wait is how long an escalation is waited for before the hook answers
	// "still pending" (DefaultWait when zero, at most MaxWait).
	Wait time.Duration
	// DeferAllow makes an allowed call defer to the agent's own
	// permission prompts instead of pre-approving it.
	DeferAllow bool
	// BeforeWait, when set, is called once a request is about to be
	// submitted and waited for: `sandbox hook` starts catching SIGINT and
	// SIGTERM there (until then it ignores them), which costs a thread and
	// a round trip per signal that an allowed call never needs.
	BeforeWait func()
}

func (c *Core) wait() time.Duration {
	switch w := c.Options.Wait; {
	case w <= 0:
		return DefaultWait
	case w > MaxWait:
		return MaxWait
	default:
		return w
	}
}

// Logger is the core's logger (discarding when none was given).
func (c *Core) Logger() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
