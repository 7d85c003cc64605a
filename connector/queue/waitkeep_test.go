package queue

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWaitKeepLeavesTheRequestPending(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("echo", "s"))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := q.WaitKeep(ctx, id); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitKeep: %v", err)
	}
	again, joined, err := q.Submit(context.Background(), shellReq("echo", "s"))
	if err != nil || !joined || again != id {
		t.Fatalf("resubmit: id %s joined %v err %v; want to join %s", again, joined, err, id)
	}
}
