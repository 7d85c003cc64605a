package approver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// ApproveOptions shape one approval.
type ApproveOptions struct {
	// ShownHash, when set, is the content hash the human saw: a request
	// whose content changed since is refused (and quarantined by the queue).
	ShownHash string
	// Always stores a signed remembered decision for Pattern (the proposed
	// pattern when empty) so that matching requests are approved by
	// themselves from now on.
	Always  bool
	Pattern string
	// Rules, for an "always" of a request with several escalated parts,
	// is one remembered allow per part (each shown to the human before it
	// is taken); together they must cover the request, and each must lift
	// at least one of its escalated parts. Pattern is then unused.
	Rules []policy.Remembered
	// OnOutput sees the command's output as it arrives (live display).
	OnOutput func(stream string, p []byte)
}

// Approve claims request id, audits the approval, executes the request
// exactly as read at the claim, writes its result to done/ and audits the
// outcome. The returned result is the one written. Losing the claim to
// another approver returns ErrAlreadyTaken (or ErrAlreadyDecided); a deny
// that reached the request first returns an error matching
// ErrDeniedBeforeStart with the denied result; an audit log that cannot be
// written refuses the approval (ErrAuditRefused) and nothing runs.
func (a *Approver) Approve(ctx context.Context, id string, o ApproveOptions) (*queue.Result, error) {
	c, err := a.claim(id, o.ShownHash)
	if err != nil {
		return nil, err
	}
	return a.approveClaimed(ctx, c, a.id, o, "")
}

// claim takes id, mapping the queue's errors onto ours.
func (a *Approver) claim(id, shownHash string) (*queue.Claim, error) {
	var c *queue.Claim
	var err error
	if shownHash != "" {
		c, err = a.q.ClaimShown(id, shownHash)
	} else {
		c, err = a.q.Claim(id)
	}
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, queue.ErrAlreadyClaimed) && a.decided(id):
		return nil, fmt.Errorf("%s: %w", id, ErrAlreadyDecided)
	case errors.Is(err, queue.ErrAlreadyClaimed):
		return nil, fmt.Errorf("%s: %w", id, ErrAlreadyTaken)
	case errors.Is(err, queue.ErrNotFound):
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	case errors.Is(err, queue.ErrInvalid) && !queue.ValidID(id):
		return nil, fmt.Errorf("%q: %w", id, ErrBadID)
	}
	return nil, err
}

func (a *Approver) decided(id string) bool {
	_, err := a.q.Result(id)
	return err == nil
}

// approveClaimed approves and runs a claimed request; rule names the
// remembered decision that approved it, if any.
func (a *Approver) approveClaimed(ctx context.Context, c *queue.Claim, who Identity, o ApproveOptions, rule string) (*queue.Result, error) {
	if a.afterClaim != nil {
		a.afterClaim(c)
	}
	req := c.Request
	if why := SelfProtected(a.f, req); why != "" {
		return a.refuseProtected(c, who, why)
	}
	pattern, err := a.pattern(req, o)
	if err != nil {
		return nil, a.release(c, err)
	}
	detail := approvedDetail(who, pattern, rule)
	if parts := a.escalatedParts(req); len(parts) > 0 {
		detail["parts"] = parts
	}
	if err := a.record(who, "request.approved", c, "approved", detail); err != nil {
		return nil, a.release(c, err)
	}
	decided := time.Now().UTC()
	if err := c.Begin(); err != nil {
		return a.lostToDeny(c, err)
	}
	var remErr error
	if o.Always && len(o.Rules) > 0 {
		if remErr = a.memory.(PartsMemory).RememberParts(req, o.Rules, who); remErr != nil {
			a.log.Warn("could not remember the decisions", "id", req.ID, "patterns", pattern, "err", remErr)
			remErr = fmt.Errorf("%s: %w: %w", req.ID, ErrNotRemembered, remErr)
			pattern = ""
		}
	} else if o.Always {
		if remErr = a.memory.Remember(req, pattern, who); remErr != nil {
			a.log.Warn("could not remember the decision", "id", req.ID, "pattern", pattern, "err", remErr)
			remErr = fmt.Errorf("%s: %w: %w", req.ID, ErrNotRemembered, remErr)
			pattern = ""
		}
	}
	res := a.execute(ctx, c, o.OnOutput)
	res.Approver, res.Decided, res.Always = who.queueApprover(), decided, pattern
	res, err = a.finish(c, who, res)
	return res, errors.Join(err, remErr)
}

// pattern is the remembered pattern of an "always" approval.
func (a *Approver) pattern(req *queue.Request, o ApproveOptions) (string, error) {
	if !o.Always {
		return "", nil
	}
	if a.memory == nil {
		return "", fmt.Errorf("approve always: %w", ErrNoMemory)
	}
	if len(o.Rules) > 0 {
		pm, ok := a.memory.(PartsMemory)
		if !ok {
			return "", fmt.Errorf("approve always: one rule per part: %w", ErrNoMemory)
		}
		if err := pm.CheckParts(req, o.Rules); err != nil {
			return "", err
		}
		return rulesText(o.Rules), nil
	}
	pattern := o.Pattern
	if pattern == "" {
		p, err := a.memory.Propose(req)
		if err != nil {
			return "", err
		}
		pattern = p
	}
	if err := a.memory.Check(req, pattern); err != nil {
		return "", err
	}
	return pattern, nil
}

func approvedDetail(who Identity, pattern, rule string) map[string]any {
	d := map[string]any{"user": who.User}
	if pattern != "" {
		d["always"] = pattern
	}
	if rule != "" {
		d["remembered"] = rule
	}
	return d
}

// release gives a claimed request back after a refusal that ran nothing.
func (a *Approver) release(c *queue.Claim, cause error) error {
	if err := c.Release(); err != nil {
		a.log.Error("could not release a refused request", "id", c.ID(), "err", err)
	}
	return cause
}

// lostToDeny reports a deny that reached the gate before this approval.
func (a *Approver) lostToDeny(c *queue.Claim, err error) (*queue.Result, error) {
	if !errors.Is(err, queue.ErrDenied) {
		return nil, a.failUnstarted(c, err)
	}
	res, rerr := a.q.Result(c.ID())
	if rerr != nil {
		return nil, fmt.Errorf("%s: %w", c.ID(), ErrDeniedBeforeStart)
	}
	return res, fmt.Errorf("%s: %w (%s)", c.ID(), ErrDeniedBeforeStart, res.Approver.User)
}

// failUnstarted completes a request that could not start as failed, so
// that it never stays claimed.
func (a *Approver) failUnstarted(c *queue.Claim, cause error) error {
	res := &queue.Result{Decision: queue.Failed, Approver: a.id.queueApprover(), Reason: cause.Error()}
	if err := c.Complete(res); err != nil {
		a.log.Error("could not complete a failed request", "id", c.ID(), "err", err)
	}
	return cause
}

// finish writes the result and audits the outcome.
func (a *Approver) finish(c *queue.Claim, who Identity, res *queue.Result) (*queue.Result, error) {
	if err := c.Complete(res); err != nil {
		return res, fmt.Errorf("%s: writing the result: %w", c.ID(), err)
	}
	detail := map[string]any{"duration_ms": res.DurationMS}
	if res.ExitCode != nil {
		detail["exit_code"] = *res.ExitCode
	}
	if res.Signal != "" {
		detail["signal"] = res.Signal
	}
	if res.WrittenHash != "" {
		detail["written_hash"] = res.WrittenHash
	}
	if len(res.Jail) > 0 {
		detail["jail"] = res.Jail
	}
	if err := a.record(who, "exec.end", c, string(res.Decision), detail); err != nil {
		a.log.Error("audit of an execution's end failed", "id", c.ID(), "err", err)
	}
	return res, nil
}

// record appends one audit entry about the claimed request. An error
// means the action it announces must not happen.
func (a *Approver) record(who Identity, event string, c *queue.Claim, decision string, detail map[string]any) error {
	_, err := a.audit.Append(audit.Entry{
		Actor: a.actor(who), Event: event, RequestID: c.ID(),
		Decision: decision, ContentHash: c.Hash, Detail: detail,
	})
	if err != nil {
		return fmt.Errorf("%s: %w: %w", c.ID(), ErrAuditRefused, err)
	}
	return nil
}
