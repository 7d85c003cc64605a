package queue

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

var waitModes = []struct {
	name string
	opts []Option
}{
	{"fsnotify", nil},
	{"polling", []Option{WithPolling()}},
}

func TestWaitModes(t *testing.T) {
	for _, m := range waitModes {
		t.Run(m.name, func(t *testing.T) {
			q := testQueue(t, m.opts...)
			id := submit(t, q, shellReq("echo", "s"))
			got := make(chan *Result, 1)
			go func() {
				res, err := q.Wait(testCtx(t), id)
				if err != nil {
					t.Errorf("wait: %v", err)
				}
				got <- res
			}()
			c, err := openIn(t, q.f.Root).Claim(id)
			mustOK(t, err)
			approve(t, c, "out")
			if res := <-got; res == nil || res.Stdout != "out" {
				t.Fatalf("result = %+v", res)
			}
		})
	}
}

func TestWaitEndsWhenQuarantined(t *testing.T) {
	for _, m := range waitModes {
		t.Run(m.name, func(t *testing.T) {
			q := testQueue(t, m.opts...)
			id := submit(t, q, shellReq("echo", "s"))
			mustOK(t, os.Rename(q.path(StatePending, id), q.f.Quarantine()+"/x"))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := q.Wait(ctx, id); !errors.Is(err, ErrNotFound) {
				t.Fatalf("wait: %v", err)
			}
		})
	}
}

func TestChanges(t *testing.T) {
	for _, m := range waitModes {
		t.Run(m.name, func(t *testing.T) {
			q := testQueue(t, m.opts...)
			ch, err := q.Changes(testCtx(t))
			mustOK(t, err)
			<-ch // the initial signal
			submit(t, openIn(t, q.f.Root), shellReq("echo", "s"))
			select {
			case <-ch:
			case <-time.After(20 * time.Second):
				t.Fatal("no change signalled")
			}
		})
	}
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestWithdraw(t *testing.T) {
	t.Run("cancel withdraws a pending request", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("echo", "s"))
		if _, err := q.Wait(cancelled(), id); !errors.Is(err, context.Canceled) {
			t.Fatalf("wait: %v", err)
		}
		res, err := q.Result(id)
		if err != nil || res.Decision != Withdrawn {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
	t.Run("a claimed request is not withdrawn", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("echo", "s"))
		c, err := openIn(t, q.f.Root).Claim(id)
		mustOK(t, err)
		q.Wait(cancelled(), id)
		if _, err := q.Result(id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("result: %v", err)
		}
		approve(t, c, "ran")
	})
	t.Run("one of two joined waiters gives up", func(t *testing.T) {
		q := testQueue(t)
		other := openIn(t, q.f.Root)
		id := submit(t, q, shellReq("echo", "s"))
		if id2, joined, _ := other.Submit(context.Background(), shellReq("echo", "s")); !joined || id2 != id {
			t.Fatal("not joined")
		}
		q.Wait(cancelled(), id) // the creator gives up
		if _, err := q.Result(id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("withdrawn for the other waiter: %v", err)
		}
		other.Wait(cancelled(), id) // the last one gives up
		if res, err := q.Result(id); err != nil || res.Decision != Withdrawn {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
	t.Run("the joiner gives up while the creator waits", func(t *testing.T) {
		q := testQueue(t)
		other := openIn(t, q.f.Root)
		id := submit(t, q, shellReq("echo", "s"))
		other.Submit(context.Background(), shellReq("echo", "s"))
		other.Wait(cancelled(), id)
		if _, err := q.Result(id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("withdrawn under the creator: %v", err)
		}
		q.Wait(cancelled(), id)
		if res, err := q.Result(id); err != nil || res.Decision != Withdrawn {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
	t.Run("a closed creator lets the last joiner withdraw", func(t *testing.T) {
		q := testQueue(t)
		other := openIn(t, q.f.Root)
		id := submit(t, q, shellReq("echo", "s"))
		q.Close()
		other.Submit(context.Background(), shellReq("echo", "s"))
		other.Wait(cancelled(), id)
		if res, err := q.Result(id); err != nil || res.Decision != Withdrawn {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
	t.Run("a dead joined waiter does not keep it", func(t *testing.T) {
		q := testQueue(t)
		other := openIn(t, q.f.Root)
		id := submit(t, q, shellReq("echo", "s"))
		other.Submit(context.Background(), shellReq("echo", "s"))
		w := other.takeWaiter(id)
		w.f.Close() // as if that process had died: file left, lock free
		if _, err := os.Lstat(w.path); err != nil {
			t.Fatal(err)
		}
		q.Wait(cancelled(), id)
		if res, err := q.Result(id); err != nil || res.Decision != Withdrawn {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
	t.Run("a non-submitter never withdraws", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("echo", "s"))
		openIn(t, q.f.Root).Wait(cancelled(), id)
		if _, err := q.Result(id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("result: %v", err)
		}
	})
}
