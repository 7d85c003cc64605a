package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Polling intervals of the fallback and the safety re-check.
const (
	pollMin     = 5 * time.Millisecond
	pollMax     = 500 * time.Millisecond
	safetyCheck = 2 * time.Second
)

// Wait blocks until request id has a result and returns it. It watches
// done/ with file system notification (re-checking after arming the
// watch, so a result renamed in meanwhile is not missed) and falls back to
// polling where notification is unavailable (or WithPolling). A request
// that disappears without a result (quarantined) ends the wait with
// ErrNotFound.
//
// When ctx ends first, Wait withdraws the request if this Queue submitted
// (or joined) it, it is still pending, and no other live waiter is
// registered for it: it is then completed as `withdrawn`. A claimed
// request is never withdrawn. The error matches ctx.Err().
func (q *Queue) Wait(ctx context.Context, id string) (*Result, error) {
	if !ValidID(id) {
		return nil, invalid("id", "must match ^[a-z0-9-]{1,64}$")
	}
	w := q.takeWaiter(id)
	res, err := q.waitDone(ctx, id)
	if err == nil || ctx.Err() == nil || w == nil {
		w.release()
		return res, err
	}
	if q.withdraw(id, w) {
		return nil, fmt.Errorf("wait %s: %w (withdrawn)", id, ctx.Err())
	}
	return nil, fmt.Errorf("wait %s: %w", id, ctx.Err())
}

// waitDone waits for done/ID.json.
func (q *Queue) waitDone(ctx context.Context, id string) (*Result, error) {
	var events <-chan struct{}
	if !q.poll {
		if ch, stop, err := q.notify(ctx, id+".json", q.f.Done()); err == nil {
			defer stop()
			events = ch
		} else {
			q.log.Debug("file notification unavailable, polling", "err", err)
		}
	}
	return q.waitLoop(ctx, id, events)
}

func (q *Queue) waitLoop(ctx context.Context, id string, events <-chan struct{}) (*Result, error) {
	interval := pollMin
	if events != nil {
		interval = safetyCheck
	}
	timer := time.NewTimer(0) // first check at once, after arming the watch
	defer timer.Stop()
	misses := 0
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-events:
		case <-timer.C:
			if events == nil {
				interval = min(interval*3/2, pollMax)
			}
			timer.Reset(interval)
		}
		res, err := q.Result(id)
		if errors.Is(err, ErrForged) || (q.Verifies() && errors.Is(err, ErrBadFile)) {
			// Not the trusted side's (it writes whole, signed files):
			// quarantined and reported, as if absent; the real one may
			// still come.
			continue
		}
		if !errors.Is(err, ErrNotFound) {
			return res, err
		}
		if misses = q.missing(id, misses); misses >= 2 {
			return nil, fmt.Errorf("wait %s: it left the queue without a result: %w", id, ErrNotFound)
		}
	}
}

// missing counts consecutive checks where id was in none of pending/,
// claimed/ and done/ (looked at in the order a request moves).
func (q *Queue) missing(id string, misses int) int {
	for _, s := range []State{StatePending, StateClaimed, StateDone} {
		if _, err := os.Lstat(q.path(s, id)); err == nil {
			return 0
		}
	}
	return misses + 1
}

// withdraw completes id as withdrawn when it is still pending and w was
// its last waiter. It reports whether it withdrew.
func (q *Queue) withdraw(id string, w *waiter) bool {
	unlock, err := q.lockBus(context.Background())
	if err != nil {
		w.release()
		q.log.Warn("withdraw", "id", id, "err", err)
		return false
	}
	defer unlock()
	if !q.givesUp(w) {
		return false
	}
	c, err := q.Claim(id)
	if err != nil {
		return false // claimed by an approver, finished, or gone
	}
	err = c.Complete(&Result{Decision: Withdrawn, Approver: Approver{User: LocalUser(), Surface: "waiter"},
		Reason: "the requester stopped waiting before anyone decided"})
	return err == nil
}
