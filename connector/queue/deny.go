package queue

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// denySettle bounds how long Deny keeps looking while the request moves
// between states under someone else's hold: an approver between locking
// pending/ID.json and renaming it into claimed/, or releasing it. Such
// moves take microseconds; the bound only guards against a stuck holder.
const denySettle = 5 * time.Second

// denyNote is the content of a gate created by Deny.
type denyNote struct {
	By     Approver  `json:"by"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

func (n denyNote) result() *Result {
	return &Result{Decision: Denied, Approver: n.By, Reason: n.Reason, Decided: n.At}
}

// ours reports whether res is the result of this deny.
func (n denyNote) ours(res *Result) bool {
	return res.Decision == Denied && res.Approver == n.By && res.Decided.Equal(n.At)
}

// Deny decides id as denied by who, with an optional reason for the model.
// A pending request is claimed and completed as denied. A request another
// approver has claimed (or is claiming) but not begun executing is denied
// too: Deny creates its gate, so that approver's Begin fails and it
// completes the request as denied (deny wins). ErrAlreadyRunning when
// execution has begun; ErrAlreadyClaimed when the request had already
// finished. While the request moves between states Deny looks again, for
// at most denySettle; its gate stays in place meanwhile.
func (q *Queue) Deny(id string, who Approver, reason string) error {
	_, err := q.DenyResult(id, who, reason)
	return err
}

// DenyResult is Deny that also returns the result when this call wrote it
// (the request was pending): the caller's own record of its decision,
// which it need not read back from done/. It is nil when another approver
// holds the request and writes the result when it meets the deny gate.
func (q *Queue) DenyResult(id string, who Approver, reason string) (*Result, error) {
	note := denyNote{By: who, Reason: reason, At: q.now().UTC()}
	deadline := time.Now().Add(denySettle)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		res, done, err := q.denyOnce(id, note)
		if done || err != nil {
			return res, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("deny %s: the request kept changing state for %s (the deny gate stays)", id, denySettle)
		}
		time.Sleep(pause)
	}
}

// denyOnce is one attempt of Deny; done is false when the request is
// between states and Deny should look again.
func (q *Queue) denyOnce(id string, note denyNote) (res *Result, done bool, err error) {
	c, err := q.Claim(id)
	if err == nil {
		res = note.result()
		if err := c.Complete(res); err != nil {
			return nil, true, err
		}
		return res, true, nil
	}
	if !errors.Is(err, ErrAlreadyClaimed) {
		return nil, true, err
	}
	done, err = q.denyClaimed(id, note)
	return nil, done, err
}

// denyClaimed creates the deny gate of a request someone else holds.
func (q *Queue) denyClaimed(id string, note denyNote) (done bool, err error) {
	res, err := q.Result(id)
	switch {
	case err == nil:
		os.Remove(q.gatePath(id)) // finished: any gate left is stale
		if note.ours(res) {
			return true, nil // our gate won in an earlier attempt
		}
		return true, fmt.Errorf("deny %s: already finished (%s): %w", id, res.Decision, ErrAlreadyClaimed)
	case !errors.Is(err, ErrNotFound):
		return true, fmt.Errorf("deny %s: %w", id, err)
	}
	data, err := encode(note)
	if err != nil {
		return true, err
	}
	won, err := q.createGate(id, data)
	if err != nil {
		return true, fmt.Errorf("deny %s: %w", id, err)
	}
	if !won {
		if q.afterGateLost != nil {
			q.afterGateLost()
		}
		return q.denyLost(id)
	}
	return q.heldByApprover(id), nil
}

// denyLost reports on a gate someone else created first: a deny note means
// the request is denied (once an approver holds it, it meets the note);
// anything else, that it began running. A gate gone before it could be
// read means the request finished meanwhile, and its result says how.
func (q *Queue) denyLost(id string) (done bool, err error) {
	_, running, err := q.gate(id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return q.denyAfterGate(id)
	case running:
		return true, fmt.Errorf("deny %s: %w", id, ErrAlreadyRunning)
	}
	return q.heldByApprover(id), nil
}

// denyAfterGate reports a deny that lost the gate to someone whose gate is
// gone again: a denied result means a deny won; any other result, that
// the gate was a run gate, so the request ran. No result yet: look again.
func (q *Queue) denyAfterGate(id string) (done bool, err error) {
	res, err := q.Result(id)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return true, fmt.Errorf("deny %s: %w", id, err)
	case res.Decision == Denied:
		return true, nil
	}
	return true, fmt.Errorf("deny %s: %s: %w", id, res.Decision, ErrAlreadyRunning)
}

// heldByApprover reports whether claimed/ID.json exists: its holder meets
// the gate at Begin, Release or recovery. Otherwise the request is being
// claimed or was released, and Deny looks again (keeping its gate).
func (q *Queue) heldByApprover(id string) bool {
	_, err := os.Lstat(q.path(StateClaimed, id))
	return err == nil
}

// readGate reads id's gate: the deny note, or running when the gate is
// anything else (an approver began executing). A gate that cannot be read
// at all is treated as a deny that names no one.
func (q *Queue) readGate(id string) (note denyNote, running bool) {
	note, running, _ = q.gate(id)
	return note, running
}

// gate is readGate that also returns the read error (fs.ErrNotExist: no
// gate, or it is gone).
func (q *Queue) gate(id string) (note denyNote, running bool, err error) {
	unknown := denyNote{By: Approver{User: "unknown", Surface: "cli"},
		Reason: "denied by another approver", At: q.now().UTC()}
	raw, err := readSmall(q.gatePath(id), 8<<10)
	if err != nil {
		return unknown, false, err
	}
	if decodeStrict(raw, &note) != nil || note.By.User == "" {
		return unknown, true, nil // "run", or a run gate still being written
	}
	return note, false, nil
}

// readSmall reads a small file without following links or blocking, but
// without the one-link rule (a gate is published by hard-linking).
func readSmall(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, badFile("too big")
	}
	return b, nil
}
