package queue

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

func testKey(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

// forgeResult writes done/ID.json the way an agent (or a jailed process
// that could reach done/) would: a valid-looking approval of its own.
func forgeResult(t *testing.T, q *Queue, id string, mac string) {
	t.Helper()
	code := 0
	res := &Result{Version: Version, ID: id, Decision: Approved, Decided: time.Now().UTC(),
		Approver: Approver{User: "human@host", Surface: "watch"}, ExitCode: &code, Stdout: "ok", MAC: mac}
	data, err := encode(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(q.path(StateDone, id), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestForgedResultIsNotADecision: with the per-user key, a done/ID.json
// the trusted side did not write (no MAC, a MAC under another key, a
// genuine result of another folder copied in) is reported as ErrForged,
// quarantined, and never returned as the decision; a waiter keeps waiting
// for the real one.
func TestForgedResultIsNotADecision(t *testing.T) {
	other := testQueue(t, WithKey(testKey(1)))
	oid := submit(t, other, shellReq("echo other", "s"))
	oc, err := other.Claim(oid)
	if err != nil {
		t.Fatal(err)
	}
	approve(t, oc, "other folder")
	genuine, err := os.ReadFile(other.path(StateDone, oid))
	if err != nil {
		t.Fatal(err)
	}
	wrong := &Result{}
	tests := []struct {
		name  string
		plant func(t *testing.T, q *Queue, id string)
	}{
		{"no MAC", func(t *testing.T, q *Queue, id string) { forgeResult(t, q, id, "") }},
		{"MAC under another key", func(t *testing.T, q *Queue, id string) {
			forgeResult(t, q, id, "")
			raw, _ := os.ReadFile(q.path(StateDone, id))
			decodeStrict(raw, wrong)
			mac, _ := resultMAC(testKey(9), q.f.Root, wrong)
			forgeResult(t, q, id, mac)
		}},
		{"genuine result of another folder", func(t *testing.T, q *Queue, id string) {
			os.WriteFile(q.path(StateDone, id), bytes.ReplaceAll(genuine, []byte(oid), []byte(id)), 0o600)
		}},
		{"genuine result with its decision edited", func(t *testing.T, q *Queue, id string) {
			c, err := q.Claim(id)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Complete(&Result{Decision: Denied, Approver: Approver{User: "h@h", Surface: "cli"}}); err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(q.path(StateDone, id))
			os.WriteFile(q.path(StateDone, id), bytes.Replace(raw, []byte(`"denied"`), []byte(`"approved"`), 1), 0o600)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := openIn(t, t.TempDir(), WithKey(testKey(1)))
			id := submit(t, q, shellReq("git push", "s"))
			tc.plant(t, q, id)
			res, err := q.Result(id)
			if !errors.Is(err, ErrForged) || res != nil {
				t.Fatalf("Result of a planted file = %+v, %v; want ErrForged", res, err)
			}
			if _, err := os.Lstat(q.path(StateDone, id)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the forged result was not quarantined: %v", err)
			}
			if len(names(t, q.f.Quarantine())) == 0 {
				t.Error("nothing in quarantine/")
			}
		})
	}
}

// TestWaiterIgnoresForgedResult: a waiter that sees a planted approval
// keeps waiting and returns the approver's real decision.
func TestWaiterIgnoresForgedResult(t *testing.T) {
	q := testQueue(t, WithKey(testKey(2)))
	id := submit(t, q, shellReq("git push", "s"))
	forgeResult(t, q, id, "")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if res, err := q.WaitKeep(ctx, id); err == nil {
		t.Fatalf("Wait returned a planted result: %+v", res)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		forgeResult(t, q, id, "")
		time.Sleep(50 * time.Millisecond)
		if err := q.Deny(id, Approver{User: "h@h", Surface: "cli"}, "no"); err != nil {
			t.Error(err)
		}
	}()
	res, err := q.Wait(testCtx(t), id)
	if err != nil || res.Decision != Denied {
		t.Fatalf("Wait = %+v, %v; want the real denial", res, err)
	}
}

// TestSignedResultRoundTrips: what a keyed queue writes, a keyed queue
// reads back, and a queue without the key (a shim in the jail) reads too.
func TestSignedResultRoundTrips(t *testing.T) {
	root := t.TempDir()
	q := openIn(t, root, WithKey(testKey(3)))
	id := submit(t, q, shellReq("printf '<&>\\xff'", "s"))
	c, err := q.Claim(id)
	if err != nil {
		t.Fatal(err)
	}
	approve(t, c, "out <&> \xff\x00 done")
	if res, err := q.Result(id); err != nil || res.MAC == "" {
		t.Fatalf("keyed read: %+v %v", res, err)
	}
	if _, err := openIn(t, root).Result(id); err != nil {
		t.Fatalf("keyless read: %v", err)
	}
}

// TestDenyResultIsTheDeniersOwnRecord: the approver that denies a pending
// request gets its result from memory (CI summaries are built from it),
// so nothing written into done/ afterwards can change what it reports.
func TestDenyResultIsTheDeniersOwnRecord(t *testing.T) {
	q := testQueue(t, WithKey(testKey(4)))
	id := submit(t, q, shellReq("curl -X POST http://127.0.0.1:8080/", "s"))
	res, err := q.DenyResult(id, Approver{User: "ci@h", Surface: "ci"}, "no rule")
	if err != nil || res == nil || res.Decision != Denied || res.MAC == "" {
		t.Fatalf("DenyResult = %+v, %v", res, err)
	}
	forgeResult(t, q, id, "")
	if res.Decision != Denied {
		t.Fatal("the in-memory record changed")
	}
	if got, err := q.Result(id); !errors.Is(err, ErrForged) {
		t.Fatalf("read back %+v, %v; want ErrForged", got, err)
	}
}
