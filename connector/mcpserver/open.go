package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// openLive opens the hook core on the folder. Inside `sandbox run`'s jail
// the per-user state (the accepted policy, the audit key) is out of
// reach: the server then enforces no accepted policy at all, so that
// everything but the built-in denials goes to a human (the approver,
// outside the jail, audits what it decides).
func (s *Server) openLive(ctx context.Context) (*hook.Core, error) {
	core, err := live.Open(ctx, s.opts.Folder.Root, live.Options{Agent: Agent, Classify: true, Wait: hook.MaxWait, Log: s.log, Exe: s.opts.Exe, ProbeJail: s.opts.ProbeJail})
	if err == nil {
		return core, s.ensurePolicy(core)
	}
	if !s.jailed() {
		return nil, err
	}
	s.log.Warn("per-user state out of reach: escalating everything", "err", err)
	eng, perr := policy.New(s.opts.Folder.Root, nil, policy.Options{Logger: s.log})
	if perr != nil {
		return nil, fmt.Errorf("%w; and without it: %w", err, perr)
	}
	c := &hook.Core{Folder: s.opts.Folder, Policy: eng, Log: s.log, JailState: hook.JailInside}
	c.Queue = func() (hook.Queue, error) {
		q, err := queue.Open(s.opts.Folder, queue.WithLogger(s.log))
		if err != nil {
			return nil, err
		}
		c.OnClose(q.Close)
		return keeper{q}, nil
	}
	return c, nil
}

// ensurePolicy loads the folder's accepted policy into core when the
// opener left it out.
func (s *Server) ensurePolicy(core *hook.Core) error {
	if core.Policy != nil {
		return nil
	}
	st, err := userstate.Open(false)
	if err != nil {
		core.Close()
		return fmt.Errorf("per-user state: %w", err)
	}
	eng, warns, err := store.Load(core.Folder, st, s.log)
	if err != nil {
		core.Close()
		return fmt.Errorf("policy: %w", err)
	}
	for _, w := range warns {
		s.log.Warn("policy", "warning", w.String())
	}
	core.Policy = eng
	return nil
}

// Agent names the MCP server in requests and audit records.
const Agent = "mcp"

// keeper waits without withdrawing (see live).
type keeper struct{ *queue.Queue }

func (k keeper) Wait(ctx context.Context, id string) (*queue.Result, error) {
	return k.Queue.WaitKeep(ctx, id)
}

// jailed reports whether the server runs inside `sandbox run`'s jail.
func (s *Server) jailed() bool { return jailValue(s.opts.Environ) != "" }

func jailValue(env []string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == JailVar {
			v = val
		}
	}
	return v
}
