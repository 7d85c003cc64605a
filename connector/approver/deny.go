package approver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// denyResultWait bounds how long Deny waits for the approver that had
// claimed the request to write the denied result.
const denyResultWait = 3 * time.Second

// Deny decides request id as denied, with an optional reason that goes
// back to the model. Deny wins over an approval that has not started: a
// request another approver claimed but has not begun running is denied
// too. A request already running returns ErrTooLate; one already finished
// returns ErrAlreadyDecided with its result.
func (a *Approver) Deny(ctx context.Context, id, reason string) (*queue.Result, error) {
	return a.deny(ctx, id, reason, a.id, "")
}

func (a *Approver) deny(ctx context.Context, id, reason string, who Identity, rule string) (*queue.Result, error) {
	if !queue.ValidID(id) {
		return nil, fmt.Errorf("%q: %w", id, ErrBadID)
	}
	hash := ""
	if req, _, err := a.q.Load(id); err == nil && req != nil {
		hash = req.Hash
	}
	own, err := a.q.DenyResult(id, who.queueApprover(), reason)
	switch {
	case errors.Is(err, queue.ErrAlreadyRunning):
		a.recordDeny(who, "request.deny_too_late", id, hash, reason, rule)
		return nil, fmt.Errorf("%s: %w", id, ErrTooLate)
	case errors.Is(err, queue.ErrAlreadyClaimed):
		res, _ := a.q.Result(id)
		return res, fmt.Errorf("%s: %w", id, ErrAlreadyDecided)
	case errors.Is(err, queue.ErrNotFound):
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("deny %s: %w", id, err)
	}
	res := own // this process's own record when it wrote the result
	if res == nil {
		res, err = a.awaitResult(ctx, id)
	}
	if res != nil && res.Decision != queue.Denied {
		// The request ended otherwise after all: the approver that held
		// it completed it without meeting the gate (it failed to start).
		a.recordDeny(who, "request.deny_too_late", id, hash, reason, rule)
		return res, fmt.Errorf("%s: %w (%s)", id, ErrTooLate, res.Decision)
	}
	auditErr := a.recordDeny(who, "request.denied", id, hash, reason, rule)
	return res, errors.Join(err, auditErr)
}

// recordDeny audits a deny. A deny is never refused for want of a record
// (refusing it would leave the request approvable); the error says so.
func (a *Approver) recordDeny(who Identity, event, id, hash, reason, rule string) error {
	detail := map[string]any{"user": who.User}
	if reason != "" {
		detail["reason"] = reason
	}
	if rule != "" {
		detail["remembered"] = rule
	}
	_, err := a.audit.Append(audit.Entry{
		Actor: a.actor(who), Event: event, RequestID: id,
		Decision: "denied", ContentHash: hash, Detail: detail,
	})
	if err != nil {
		a.log.Error("a deny could not be audited", "id", id, "err", err)
		return fmt.Errorf("%s: denied, but %w: %w", id, ErrAuditRefused, err)
	}
	return nil
}

// awaitResult returns id's result, waiting a little when another
// approver (which claimed it) has yet to write it.
func (a *Approver) awaitResult(ctx context.Context, id string) (*queue.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, denyResultWait)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		res, err := a.q.Result(id)
		if err == nil || !errors.Is(err, queue.ErrNotFound) {
			return res, err
		}
		select {
		case <-ctx.Done():
			// The deny is in place; the approver that holds the claim
			// writes the result when it reaches its gate.
			return nil, nil
		case <-tick.C:
		}
	}
}
