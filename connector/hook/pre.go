package hook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// PreToolUse decides one tool call before the agent runs it: allow (after
// saving the originals of the files it writes), deny with the policy's
// reasons, or escalate to a human and wait. An error means the hook could
// not decide; the adapter must fail closed on it.
func (c *Core) PreToolUse(ctx context.Context, call *Call) (*Outcome, error) {
	if c.Policy == nil {
		return nil, errors.New("bug: the hook core has no policy")
	}
	d := c.Classify(call)
	switch d.Decision {
	case policy.Allow:
		return c.allow(ctx, call, d)
	case policy.Deny:
		out := &Outcome{Verdict: Deny, Reason: policyDenial(d), Decision: d}
		return out, c.record(ctx, call, "hook.deny", d, nil)
	case policy.Escalate:
		return c.escalate(ctx, call, d)
	}
	return nil, fmt.Errorf("bug: policy returned tier %v", d.Decision)
}

// saveOriginals keeps the files a write is about to change, so that
// `sandbox restore` (PATH, --session, --all from the originals, or
// --checkpoint ID) can bring them back.
func (c *Core) saveOriginals(call *Call) error {
	if call.Action != Write {
		return nil
	}
	for _, p := range call.Paths {
		if c.Originals == nil {
			break
		}
		if err := c.Originals.Save(p, call.Session, call.ToolUseID); err != nil {
			return fmt.Errorf("keeping the original of %s: %w", p, err)
		}
	}
	if err := c.checkpoint(call); err != nil {
		return fmt.Errorf("keeping a checkpoint: %w", err)
	}
	return nil
}

func (c *Core) allow(ctx context.Context, call *Call, d policy.Decision) (*Outcome, error) {
	if err := c.saveOriginals(call); err != nil {
		return nil, err
	}
	// An allowed shell command's checkpoint (approved ones run in the
	// broker, after the human's decision, and are not kept): when it
	// cannot be kept, a human decides instead.
	if call.Action == Shell {
		if err := c.checkpoint(call); err != nil {
			c.Logger().Warn("checkpoint failed; escalating", "err", err)
			return c.escalate(ctx, call, uncheckpointed(d, err))
		}
	}
	v := Allow
	if c.Options.DeferAllow {
		v = Defer
	}
	jailed, err := c.wrap(call)
	if err != nil {
		return nil, fmt.Errorf("running the command in the project jail: %w", err)
	}
	return &Outcome{Verdict: v, Decision: d, Jailed: jailed}, nil
}

func (c *Core) escalate(ctx context.Context, call *Call, d policy.Decision) (*Outcome, error) {
	req, why := c.request(call, d)
	if req == nil {
		out := &Outcome{Verdict: Deny, Reason: notEscalable(d, why), Decision: d}
		return out, c.record(ctx, call, "hook.deny", d, nil)
	}
	if err := c.saveOriginals(call); err != nil {
		return nil, err
	}
	q, err := c.Queue()
	if err != nil {
		return nil, fmt.Errorf("opening the escalation queue: %w", err)
	}
	if c.Options.BeforeWait != nil {
		c.Options.BeforeWait()
	}
	id, joined, err := q.Submit(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("submitting the request: %w", err)
	}
	c.Logger().Info("escalated", "id", id, "joined", joined, "tool", call.Tool)
	req.ID = id // a joined request keeps the id of the one it joined
	if err := c.record(ctx, call, "hook.escalate", d, req); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, c.wait())
	defer cancel()
	wctx, unwatched := c.stopWhenUnwatched(wctx)
	res, err := q.Wait(wctx, id)
	switch {
	case err == nil && res.Decision == queue.Approved && runsInAgent(call):
		return &Outcome{Verdict: Allow, Decision: d, RequestID: id, Result: res}, nil
	case err == nil:
		return &Outcome{Verdict: Deny, Reason: c.finished(call, res), Decision: d, RequestID: id, Result: res}, nil
	case wctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		return &Outcome{Verdict: Deny, Reason: c.pendingReason(pendingWhy(id, d), unwatched()), Decision: d, RequestID: id}, nil
	}
	return nil, fmt.Errorf("waiting for request %s: %w", id, err)
}

// runsInAgent reports whether an approved call is carried out by the agent
// itself rather than by the broker: a web fetch or an MCP tool call lives
// in the agent's process, so the approval lets that one call through (the
// approver records it and runs nothing).
func runsInAgent(call *Call) bool {
	return call.Action == Fetch || call.Action == MCPTool
}

// request turns an escalated call into a queue request, or returns nil
// and why when the broker could not carry the call out.
func (c *Core) request(call *Call, d policy.Decision) (*queue.Request, string) {
	req := &queue.Request{
		Cwd: call.Cwd, Source: call.Source, Agent: call.Agent, Session: call.Session,
		Justification: call.Justification, PolicyReasons: d.Reasons,
	}
	switch call.Action {
	case Shell:
		req.Kind, req.Shell = queue.KindShell, &queue.ShellPayload{Shell: "bash", Script: call.Script}
	case Write:
		if !call.Executable || len(call.Paths) != 1 {
			return nil, fmt.Sprintf("a %s call cannot be carried out outside the agent", call.Tool)
		}
		req.Kind = queue.KindWrite
		req.Write = &queue.WritePayload{Path: call.Paths[0], Content: call.Content, Edits: call.Edits}
	case Read:
		if call.Tool != "Read" || len(call.Paths) != 1 {
			return nil, fmt.Sprintf("%s cannot be approved as one read; read the specific file with Read, or run a command with Bash and a description, which goes to a human", call.Tool)
		}
		req.Kind, req.Read = queue.KindRead, &queue.ReadPayload{Path: call.Paths[0]}
	case Fetch:
		req.Kind, req.Network = queue.KindNetwork, &queue.NetworkPayload{URL: call.URL}
	case MCPTool:
		req.Kind, req.MCP = queue.KindMCP, &queue.MCPPayload{Tool: call.Tool, Arguments: call.Args}
	default:
		return nil, fmt.Sprintf("%s cannot be carried out outside the agent", call.Tool)
	}
	return req, ""
}

// record audits a decision; req is the escalation's request, if any.
func (c *Core) record(ctx context.Context, call *Call, event string, d policy.Decision, req *queue.Request) error {
	if c.Audit == nil {
		return nil
	}
	rec := Record{
		Event: event, Agent: call.Agent, Session: call.Session, ToolUseID: call.ToolUseID,
		Tool: call.Tool, Subject: Subject(call), Decision: d.Decision.String(),
		Reasons: strings.Join(d.Reasons, "; "),
	}
	if req != nil {
		rec.RequestID, rec.ContentHash = req.ID, req.Hash
	}
	err := c.Audit.Record(ctx, rec)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}
