package queue

import "context"

// WaitKeep is Wait that never withdraws: when ctx ends first the request
// stays pending, so that the same call asked again joins it and a later
// waiter (or check_request) gets its result. The hooks use it: a hook that
// stops waiting answers "still pending", not "withdrawn".
func (q *Queue) WaitKeep(ctx context.Context, id string) (*Result, error) {
	if !ValidID(id) {
		return nil, invalid("id", "must match ^[a-z0-9-]{1,64}$")
	}
	w := q.takeWaiter(id)
	defer w.release()
	return q.waitDone(ctx, id)
}
