package queue

import (
	"errors"
	"os"
	"testing"
	"time"
)

// TestDenyWhileBeingClaimed denies a request whose approver holds the lock
// on pending/ID.json but has not renamed it into claimed/ yet: the deny
// waits for the rename instead of giving up, and the approval loses.
func TestDenyWhileBeingClaimed(t *testing.T) {
	bob := Approver{User: "bob@h", Surface: "cli"}
	q := testQueue(t)
	id := submit(t, q, shellReq("rm -rf build", "s"))
	f, err := openChecked(q.path(StatePending, id))
	mustOK(t, err)
	if ok, err := tryLock(f); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	c := &Claim{q: q, id: id, f: f}
	t.Cleanup(c.close)

	denied := make(chan error, 1)
	go func() { denied <- openIn(t, q.f.Root).Deny(id, bob, "not now") }()
	waitForDenyGate(t, q, id, denied)

	mustOK(t, os.Rename(q.path(StatePending, id), q.path(StateClaimed, id)))
	mustOK(t, c.load())
	select {
	case err := <-denied:
		mustOK(t, err)
	case <-testCtx(t).Done():
		t.Fatal("deny did not return")
	}
	if err := c.Begin(); !errors.Is(err, ErrDenied) {
		t.Fatalf("begin: %v", err)
	}
	if res, err := q.Result(id); err != nil || res.Decision != Denied || res.Approver != bob {
		t.Fatalf("result = %+v, %v", res, err)
	}
}

// waitForDenyGate waits (bounded) until Deny's gate is in place, failing
// if Deny returns first.
func waitForDenyGate(t *testing.T, q *Queue, id string, denied <-chan error) {
	t.Helper()
	ctx := testCtx(t)
	for {
		if note, running, err := q.gate(id); err == nil && !running && note.By.User == "bob@h" {
			return
		}
		select {
		case err := <-denied:
			t.Fatalf("deny returned before the request was claimed: %v", err)
		case <-ctx.Done():
			t.Fatal("no deny gate")
		case <-time.After(time.Millisecond):
		}
	}
}

// TestDenyWhenRunGateVanishes: Deny loses the gate to a run gate, and the
// approval finishes (removing the gate) before Deny reads it. That is
// "too late", never a successful deny.
func TestDenyWhenRunGateVanishes(t *testing.T) {
	bob := Approver{User: "bob@h", Surface: "cli"}
	for _, decision := range []Decision{Approved, Failed} {
		t.Run(string(decision), func(t *testing.T) {
			q := testQueue(t)
			id := submit(t, q, shellReq("make", "s"))
			c, err := q.Claim(id)
			mustOK(t, err)
			mustOK(t, c.Begin())
			d := openIn(t, q.f.Root)
			d.afterGateLost = func() {
				code := 0
				mustOK(t, c.Complete(&Result{Decision: decision, Approver: bob, ExitCode: &code}))
			}
			if err := d.Deny(id, bob, "no"); !errors.Is(err, ErrAlreadyRunning) {
				t.Fatalf("deny: %v", err)
			}
			if res, err := q.Result(id); err != nil || res.Decision != decision {
				t.Fatalf("result = %+v, %v", res, err)
			}
		})
	}
	t.Run("another deny", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("make", "s"))
		c, err := q.Claim(id)
		mustOK(t, err)
		mustOK(t, q.Deny(id, Approver{User: "ann@h", Surface: "cli"}, "first"))
		d := openIn(t, q.f.Root)
		d.afterGateLost = func() {
			if err := c.Begin(); !errors.Is(err, ErrDenied) {
				t.Errorf("begin: %v", err)
			}
		}
		mustOK(t, d.Deny(id, bob, "second"))
		if res, err := q.Result(id); err != nil || res.Decision != Denied || res.Approver.User != "ann@h" {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
}
