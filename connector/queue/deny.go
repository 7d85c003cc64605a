package queue

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// denyNote is the content of a gate created by Deny.
type denyNote struct {
	By     Approver  `json:"by"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

func (n denyNote) result() *Result {
	return &Result{Decision: Denied, Approver: n.By, Reason: n.Reason, Decided: n.At}
}

// Deny decides id as denied by who, with an optional reason for the model.
// A pending request is claimed and completed as denied. A request another
// approver has claimed but not begun executing is denied too: Deny
// creates its gate, so that approver's Begin fails and it completes the
// request as denied (deny wins). ErrAlreadyRunning when execution has
// begun; ErrAlreadyClaimed when the request has already finished.
func (q *Queue) Deny(id string, who Approver, reason string) error {
	note := denyNote{By: who, Reason: reason, At: q.now().UTC()}
	for range 3 {
		c, err := q.Claim(id)
		if err == nil {
			return c.Complete(note.result())
		}
		if !errors.Is(err, ErrAlreadyClaimed) {
			return err
		}
		done, err := q.denyClaimed(id, note)
		if done || err != nil {
			return err
		}
	}
	return fmt.Errorf("deny %s: the request keeps changing state", id)
}

// denyClaimed creates the deny gate of a claimed request. done is false
// when the request left claimed/ meanwhile (released or finished), so the
// caller looks again.
func (q *Queue) denyClaimed(id string, note denyNote) (done bool, err error) {
	if _, err := os.Lstat(q.path(StateDone, id)); err == nil {
		return true, fmt.Errorf("deny %s: already finished: %w", id, ErrAlreadyClaimed)
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
		if _, running := q.readGate(id); running {
			return true, fmt.Errorf("deny %s: %w", id, ErrAlreadyRunning)
		}
		return true, nil // someone denied it already
	}
	if _, err := os.Lstat(q.path(StateClaimed, id)); err != nil {
		os.Remove(q.gatePath(id)) // it left claimed/: our gate is stale
		return false, nil
	}
	return true, nil
}

// readGate reads id's gate: the deny note, or running when the gate is
// anything else (an approver began executing). A gate that cannot be read
// at all is treated as a deny that names no one.
func (q *Queue) readGate(id string) (note denyNote, running bool) {
	unknown := denyNote{By: Approver{User: "unknown", Surface: "cli"},
		Reason: "denied by another approver", At: q.now().UTC()}
	raw, err := readSmall(q.gatePath(id), 8<<10)
	if err != nil {
		return unknown, false
	}
	if decodeStrict(raw, &note) != nil || note.By.User == "" {
		return unknown, true // "run", or a run gate still being written
	}
	return note, false
}

// readSmall reads a small file without following links or blocking, but
// without the one-link rule (a gate is published by hard-linking).
func readSmall(path string, max int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, badFile("not a regular file")
	}
	f, err := openNoFollow(path)
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
