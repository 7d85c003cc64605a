package queue

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSubmitDirectWritesOnlyTmpAndPending(t *testing.T) {
	q := testQueue(t)
	joins, waiters := names(t, q.f.Joins()), names(t, q.f.Waiters())
	r1 := shellReq("git push", "s1")
	id1, err := q.SubmitDirect(testCtx(t), r1)
	if err != nil {
		t.Fatal(err)
	}
	id2, err := q.SubmitDirect(testCtx(t), shellReq("git push", "s1"))
	if err != nil || id2 == id1 {
		t.Fatalf("the same request again: %s %v (never joined)", id2, err)
	}
	if got := names(t, q.f.Pending()); len(got) != 2 {
		t.Errorf("pending holds %q", got)
	}
	if got := names(t, q.f.Tmp()); len(got) != 0 {
		t.Errorf("tmp holds %q", got)
	}
	if len(names(t, q.f.Joins())) != len(joins) || len(names(t, q.f.Waiters())) != len(waiters) {
		t.Error("SubmitDirect wrote the join index or a waiter")
	}
	// Its Wait never withdraws.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.Wait(ctx, id1); err == nil {
		t.Fatal("Wait on a cancelled context returned a result")
	}
	if _, st, err := q.Load(id1); err != nil || st != StatePending {
		t.Errorf("after a cancelled Wait: %s %v", st, err)
	}
}

func TestSubmitDirectLimitAndIDs(t *testing.T) {
	q := testQueue(t, WithMaxPending(2))
	for i := 0; i < 2; i++ {
		if _, err := q.SubmitDirect(testCtx(t), shellReq("x", "s")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.SubmitDirect(testCtx(t), shellReq("x", "s")); !errors.Is(err, ErrQueueFull) {
		t.Errorf("over the limit: %v", err)
	}
	q2 := testQueue(t)
	r := shellReq("y", "s")
	id, err := q2.SubmitDirect(testCtx(t), r)
	if err != nil {
		t.Fatal(err)
	}
	again := shellReq("y", "s")
	again.ID = id
	if _, err := q2.SubmitDirect(testCtx(t), again); !errors.Is(err, ErrInvalid) {
		t.Errorf("an id in use: %v", err)
	}
	if _, err := os.Stat(filepath.Join(q2.f.Tmp(), id+".json")); !os.IsNotExist(err) {
		t.Errorf("a refused submit left its staging file: %v", err)
	}
}

func TestWithdrawDirect(t *testing.T) {
	q := testQueue(t)
	id, err := q.SubmitDirect(testCtx(t), shellReq("git push", "s"))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Withdraw(id, ""); err != nil {
		t.Fatal(err)
	}
	if res, err := q.Result(id); err != nil || res.Decision != Withdrawn || res.Approver.Surface != "waiter" {
		t.Errorf("result %+v %v", res, err)
	}
	if err := q.Withdraw(id, ""); !errors.Is(err, ErrAlreadyClaimed) {
		t.Errorf("withdrawing a finished request: %v", err)
	}
	id2, _ := q.SubmitDirect(testCtx(t), shellReq("git fetch", "s"))
	c, err := q.Claim(id2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if err := q.Withdraw(id2, ""); !errors.Is(err, ErrAlreadyClaimed) {
		t.Errorf("withdrawing a claimed request: %v", err)
	}
	if err := q.Withdraw("01nosuchrequest", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("withdrawing nothing: %v", err)
	}
}
