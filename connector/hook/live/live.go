// Package live opens the hook core on a real project folder: the folder
// found upward from the event's directory, the per-user state, and the
// last accepted policy; the queue, the audit log and the originals store
// are opened only when a call needs them, because the hook runs once per
// tool call and must start fast.
package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/originals"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Options tune Open.
type Options struct {
	// Agent names the actor in the audit log ("hook:AGENT").
	Agent string
	// Classify loads the policy. Only a PreToolUse event decides anything;
	// the other events only record or brief, and skip the policy's cost.
	Classify bool
	// Wait overrides the policy's hook.wait when not zero.
	Wait time.Duration
	// DeferAllow makes allowed calls defer to the agent's own prompts.
	DeferAllow bool
	// BeforeWait is hook.Options.BeforeWait.
	BeforeWait func()
	// Exe is the sandbox binary that allowed shell commands are jailed
	// with (`Exe run ...`); empty leaves them as they came (tests, and
	// callers that are not the sandbox binary).
	Exe string
	// RunPort, when set, is the loopback port of the hook server that
	// runs jailed commands for the agent's shell (`sandbox hookd`): the
	// rewritten command asks it first, and starts the jail itself only
	// when the server says it cannot (jailer.Wrap).
	RunPort int
	// ProbeJail probes whether the jail can be built here, once, when
	// `sandbox init` or `sandbox doctor` never recorded it (a folder set up
	// by an older sandbox); the result is recorded for the next calls.
	// Nil takes a missing record for "the jail works".
	ProbeJail func() userstate.JailProbe
	// State is the per-user state; nil opens the default one
	// (userstate.Open: $XDG_STATE_HOME, else ~/.local/state).
	State *userstate.State
	// Policies, when set, keeps the folder's engine between the calls of
	// a long-running process (the hook server); nil loads it anew.
	Policies *store.Memo
	Log      *slog.Logger
}

// Open returns the core for the project that holds cwd.
func Open(_ context.Context, cwd string, o Options) (*hook.Core, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	f, err := folder.Find(cwd)
	if err != nil {
		return nil, fmt.Errorf("%w (sandbox's hooks are installed here: run `sandbox init`, or `sandbox uninstall` to remove them)", err)
	}
	if Jailed() {
		return openInside(f, o, log)
	}
	st, err := o.State, error(nil)
	if st == nil {
		st, err = userstate.Open(false)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A teammate's fresh clone on a new machine: its first step is the
		// guided acceptance, which creates the state. Refused until then.
		return nil, fmt.Errorf("per-user state: %w: no policy is accepted for this folder on this machine yet; "+
			"run `sandbox policy accept` in %s (it shows the policy and asks), then retry", err, f.Root)
	}
	if err != nil {
		return nil, fmt.Errorf("per-user state: %w (run `sandbox init DIR` outside any jail to create it)", err)
	}
	core := &hook.Core{
		Folder: f, Log: log,
		Originals: originals.Open(f),
		// Checkpoints: none inside the jail (openInside), whose hook can
		// reach no store the jailed agent could not tamper with.
		Checkpoints: &lazyStore{st: st, root: f.Root, log: log},
		Options:     hook.Options{Wait: o.Wait, DeferAllow: o.DeferAllow, BeforeWait: o.BeforeWait},
	}
	if core.Jail, core.JailState, err = jailFor(f, st, o.Exe, o.RunPort, o.ProbeJail); err != nil {
		return nil, err
	}
	if o.Classify {
		if err := loadPolicy(core, st, o.Policies); err != nil {
			return nil, err
		}
	}
	core.Queue = func() (hook.Queue, error) {
		q, err := queue.Open(f, queue.WithLogger(log), queue.WithKey(st.Key))
		if err != nil {
			return nil, err
		}
		core.OnClose(q.Close)
		return keeper{q}, nil
	}
	core.Audit = &recorder{f: f, st: st, actor: "hook:" + o.Agent, core: core}
	return core, nil
}

// loadPolicy gives core the folder's accepted policy, the policy's hook
// wait unless the caller set one, and its defer_allow (which a caller's
// DeferAllow cannot turn off).
func loadPolicy(core *hook.Core, st *userstate.State, memo *store.Memo) error {
	var eng *policy.Engine
	var warns []store.Warning
	var err error
	if memo != nil {
		eng, warns, err = memo.Load(core.Folder, st)
	} else {
		eng, warns, err = store.Load(core.Folder, st, core.Logger())
	}
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	for _, w := range warns {
		core.Logger().Warn("policy", "warning", w)
	}
	core.Policy = eng
	h := eng.Settings().Hook
	core.Options.DeferAllow = core.Options.DeferAllow || h.DeferAllow
	if core.Options.Wait == 0 {
		core.Options.Wait = h.Wait
	}
	return nil
}

// keeper waits without withdrawing: a hook that stops waiting leaves the
// request pending so that the same call asked again joins it.
type keeper struct{ *queue.Queue }

func (k keeper) Wait(ctx context.Context, id string) (*queue.Result, error) {
	return k.Queue.WaitKeep(ctx, id)
}
