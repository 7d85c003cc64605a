package queue

import (
	"context"
	"fmt"
	"os"
)

// SubmitDirect queues req without the bus lock, the join index or a
// waiter registration: it writes only tmp/ID.json and renames it into
// pending/. It is the submit path of writers that may write nothing else
// in the folder (run mode's PATH shims, inside the jail), and of writers
// whose requests must never be joined (a second `git push` is a second
// push). The pending limit is checked without the lock, so a burst of
// direct writers may pass it by a few; expiry of old requests is left to
// the approvers. A Wait on the returned id never withdraws it; use
// Withdraw, from a process that may write claimed/ and done/.
func (q *Queue) SubmitDirect(ctx context.Context, req *Request) (id string, err error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	data, err := q.prepare(req)
	if err != nil {
		return "", err
	}
	n, err := q.countPending()
	if err != nil {
		return "", err
	}
	if n >= q.maxPending {
		return "", fmt.Errorf("%d requests pending (limit %d): %w", n, q.maxPending, ErrQueueFull)
	}
	if q.used(req.ID) {
		return "", invalid("id", "%s is already in use", req.ID)
	}
	tmp, err := q.stage(req.ID, data)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, q.path(StatePending, req.ID)); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("submit %s: %w", req.ID, err)
	}
	return req.ID, nil
}

// Withdraw completes request id as `withdrawn` (surface "waiter") if it
// is still pending. A request an approver already claimed is left alone
// (ErrAlreadyClaimed); one that is gone returns ErrNotFound.
func (q *Queue) Withdraw(id, reason string) error {
	c, err := q.Claim(id)
	if err != nil {
		return err
	}
	if reason == "" {
		reason = "the requester stopped waiting before anyone decided"
	}
	return c.Complete(&Result{Decision: Withdrawn, Approver: Approver{User: LocalUser(), Surface: "waiter"}, Reason: reason})
}
