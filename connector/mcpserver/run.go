package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// runCall is one run_privileged call, its arguments checked.
type runCall struct {
	command, reason, cwd string
	wait                 time.Duration
}

func (s *Server) parseRun(p *callParams) (*runCall, error) {
	a := newArgs(p.Arguments, "command", "reason", "cwd", "wait_seconds")
	rc := &runCall{
		command: a.str("command", true, maxCommand),
		reason:  a.str("reason", true, maxReason),
		cwd:     a.str("cwd", false, queue.MaxPath),
		wait:    a.wait(),
	}
	if err := a.err(ToolRun); err != nil {
		return nil, err
	}
	dir, err := workDir(s.opts.Folder.Root, rc.cwd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ToolRun, err)
	}
	rc.cwd = dir
	return rc, nil
}

// handleRun classifies the command: allow runs it here, deny refuses it,
// escalate asks a human and waits.
func (s *Server) handleRun(ctx context.Context, p *callParams) (*ToolResult, error) {
	rc, err := s.parseRun(p)
	if err != nil {
		return badArguments(err), nil
	}
	core, err := s.opts.Open(ctx)
	if err != nil {
		return internalError(err), nil
	}
	defer s.closeCore(core)
	if core.Policy == nil {
		return internalError(errors.New("bug: no policy to classify with")), nil
	}
	call := &hook.Call{Agent: Agent, Source: queue.SourceMCP, Session: s.session, Cwd: rc.cwd,
		Tool: ToolRun, Action: hook.Shell, Script: rc.command, Justification: rc.reason}
	// defer_allow is about the agent's own prompts, which never see this
	// call: an allowed command runs here, in the jail when core has one,
	// so it is decided with the jailed policy exactly then.
	core.Options.DeferAllow = false
	d := core.Classify(call)
	switch d.Decision {
	case policy.Allow:
		return s.runAllowed(ctx, core, call, d)
	case policy.Deny:
		if err := s.record(ctx, core, call, "mcp.deny", d, nil); err != nil {
			return internalError(err), nil
		}
		return policyDenied(d), nil
	case policy.Escalate:
		return s.escalate(ctx, core, call, d, rc.wait, p.Meta.ProgressToken)
	}
	return internalError(fmt.Errorf("bug: policy returned tier %v", d.Decision)), nil
}

// runAllowed runs an allowed command with the server's own rights (inside
// the jail when the agent is jailed), environment scrubbed, and audits it.
func (s *Server) runAllowed(ctx context.Context, core *hook.Core, call *hook.Call, d policy.Decision) (*ToolResult, error) {
	script, env := call.Script, broker.Scrub(s.opts.Environ, envPass(core))
	if core.Jail != nil { // connector mode: in the project jail, as the hook runs them
		w, err := core.Jail.Wrap(call.Script, call.Cwd)
		if err != nil {
			return internalError(fmt.Errorf("running the allowed command in the project jail: %w", err)), nil
		}
		script, env = w, append(env, stateEnv(s.opts.Environ)...)
	}
	oc, err := broker.Run(ctx, broker.Spec{
		Script: script, Shell: "bash", Root: s.opts.Folder.Root, Dir: call.Cwd,
		Env: env, MaxCapture: queue.DefaultOutputCap,
	})
	if oc.Started.IsZero() {
		return internalError(fmt.Errorf("running the allowed command: %w", err)), nil
	}
	outcome := exitText(oc.ExitCode, oc.Signal)
	if err != nil {
		outcome += fmt.Sprintf(" (%v)", err)
	}
	if err := core.PostToolUse(ctx, call, outcome); err != nil {
		s.log.Warn("audit of an allowed command", "err", err)
	}
	return allowedResult(oc, d), nil
}

// stateEnv is what `sandbox run` needs of the server's environment to
// find the same per-user state (the scrubbed environment drops it).
func stateEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); k == "XDG_STATE_HOME" || k == "LOCALAPPDATA" {
			out = append(out, kv)
		}
	}
	return out
}

// envPass is the policy's pass-list for the commands it runs.
func envPass(core *hook.Core) []string {
	if eng, ok := core.Policy.(*policy.Engine); ok && eng.Policy() != nil && len(eng.Policy().Broker.Env) > 0 {
		return eng.Policy().Broker.Env
	}
	return nil
}

// record appends an audit record; failing to write it refuses the action.
func (s *Server) record(ctx context.Context, core *hook.Core, call *hook.Call, event string, d policy.Decision, req *queue.Request) error {
	if core.Audit == nil {
		return nil
	}
	rec := hook.Record{Event: event, Agent: Agent, Session: call.Session, Tool: call.Tool,
		Subject: hook.Subject(call), Decision: d.Decision.String(), Reasons: joinReasons(d.Reasons)}
	if req != nil {
		rec.RequestID, rec.ContentHash = req.ID, req.Hash
	}
	if err := core.Audit.Record(ctx, rec); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

func (s *Server) closeCore(core *hook.Core) {
	if err := core.Close(); err != nil {
		s.log.Warn("closing", "err", err)
	}
}

func joinReasons(rs []string) string {
	out := ""
	for i, r := range rs {
		if i > 0 {
			out += "; "
		}
		out += r
	}
	return out
}
