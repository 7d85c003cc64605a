package queue

import (
	"context"
	"os"
)

// WaitKeep is Wait that never withdraws: when ctx ends first the request
// stays pending, so that the same call asked again joins it and a later
// waiter (or check_request) gets its result. The hooks use it: a hook that
// stops waiting answers "still pending", not "withdrawn". A creator that
// stops waiting records it (waiters/ID.gone), so that approvers can show
// a request nobody waits for as stale: approving it would run the command
// with nobody receiving the output. A joiner's registration goes with it.
func (q *Queue) WaitKeep(ctx context.Context, id string) (*Result, error) {
	if !ValidID(id) {
		return nil, invalid("id", "must match ^[a-z0-9-]{1,64}$")
	}
	w := q.takeWaiter(id)
	defer w.release()
	res, err := q.waitDone(ctx, id)
	if err != nil && ctx.Err() != nil && w != nil && w.creator {
		os.WriteFile(q.gonePath(id), nil, 0o644)
	}
	return res, err
}
