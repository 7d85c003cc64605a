// Package queuetest holds test-only helpers for packages that build on the
// escalation queue: an automatic approver that claims every pending request
// and completes it with a result computed by the test. It is never wired to
// any user-facing command: there is no "approve everything" switch.
package queuetest

import (
	"context"
	"errors"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Exec decides and "executes" one claimed request; it returns the result
// to complete it with. Approved or Failed results are preceded by Begin.
type Exec func(c *queue.Claim) *queue.Result

// AutoApprove claims every pending request of q as it appears (losing
// races to other approvers is normal) and completes it with exec's
// result, until ctx ends. It returns the ids it completed, in order.
// Problems (bad files) are passed to onProblem when it is not nil.
func AutoApprove(ctx context.Context, q *queue.Queue, exec Exec, onProblem func(queue.Problem)) ([]string, error) {
	changes, err := q.Changes(ctx)
	if err != nil {
		return nil, err
	}
	var done []string
	for range changes {
		reqs, problems := q.Pending()
		for _, p := range problems {
			if onProblem != nil {
				onProblem(p)
			}
		}
		for _, r := range reqs {
			if ok, err := handle(q, r, exec); err != nil {
				return done, err
			} else if ok {
				done = append(done, r.ID)
			}
		}
	}
	return done, nil
}

func handle(q *queue.Queue, r *queue.Request, exec Exec) (bool, error) {
	c, err := q.ClaimShown(r.ID, r.Hash)
	if errors.Is(err, queue.ErrAlreadyClaimed) || errors.Is(err, queue.ErrNotFound) ||
		errors.Is(err, queue.ErrBadFile) {
		return false, nil // another approver won, or the file was quarantined
	}
	if err != nil {
		return false, err
	}
	res := exec(c)
	if res.Decision == queue.Approved || res.Decision == queue.Failed {
		if err := c.Begin(); errors.Is(err, queue.ErrDenied) {
			return false, nil
		} else if err != nil {
			return false, err
		}
	}
	return true, c.Complete(res)
}

// Echo approves a request and returns, as its stdout, the script or the
// first argument: enough for tests to check each waiter got its own result.
func Echo(c *queue.Claim) *queue.Result {
	code := 0
	out := ""
	if s := c.Request.Shell; s != nil {
		out = s.Script
		if out == "" && len(s.Argv) > 0 {
			out = s.Argv[0]
		}
	}
	return &queue.Result{Decision: queue.Approved, ExitCode: &code, Stdout: out,
		Approver: queue.Approver{User: "test@localhost", Surface: "ci"}}
}
