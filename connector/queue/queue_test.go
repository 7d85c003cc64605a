package queue

import (
	"errors"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	q := testQueue(t)
	ctx := testCtx(t)
	id, joined, err := q.Submit(ctx, shellReq("echo hi", "s1"))
	if err != nil || joined {
		t.Fatalf("submit: %v joined=%v", err, joined)
	}
	reqs, problems := q.Pending()
	if len(reqs) != 1 || len(problems) != 0 || reqs[0].ID != id {
		t.Fatalf("pending = %v, %v", reqs, problems)
	}
	done := make(chan error, 1)
	go func() {
		c, err := q.ClaimShown(id, reqs[0].Hash)
		if err != nil {
			done <- err
			return
		}
		approve(t, c, "hi\n")
		done <- nil
	}()
	res, err := q.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res.Decision != Approved || res.Stdout != "hi\n" || res.RequestHash != reqs[0].Hash ||
		res.Kind != KindShell || res.Summary != "echo hi" || res.Session != "s1" {
		t.Fatalf("result = %+v", res)
	}
	if _, err := q.Claim(id); !errors.Is(err, ErrAlreadyClaimed) {
		t.Fatalf("second claim: %v", err)
	}
	for _, d := range []string{q.f.Tmp(), q.f.Claimed(), q.f.Pending()} {
		if n := names(t, d); len(n) != 0 {
			t.Errorf("%s not empty: %v", d, n)
		}
	}
}
