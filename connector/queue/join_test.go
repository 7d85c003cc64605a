package queue

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// clock is a settable WithClock source.
type clock struct {
	mu sync.Mutex
	t  time.Time // guarded by mu
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newClock() *clock { return &clock{t: time.Now().UTC()} }

func TestJoin(t *testing.T) {
	ctx := context.Background()
	t.Run("same hash and session joins while pending", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("git push", "s1"))
		id2, joined, err := openIn(t, q.f.Root).Submit(ctx, shellReq("git push", "s1"))
		if err != nil || !joined || id2 != id {
			t.Fatalf("got %s joined=%v err=%v, want %s", id2, joined, err, id)
		}
	})
	t.Run("other session does not join", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("git push", "s1"))
		if id2, joined, _ := q.Submit(ctx, shellReq("git push", "s2")); joined || id2 == id {
			t.Fatalf("joined across sessions")
		}
	})
	t.Run("other content does not join", func(t *testing.T) {
		q := testQueue(t)
		submit(t, q, shellReq("git push", "s1"))
		r := shellReq("git push", "s1")
		r.Cwd = "/srv"
		if _, joined, _ := q.Submit(ctx, r); joined {
			t.Fatalf("joined another cwd")
		}
	})
	t.Run("claimed joins", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("git push", "s1"))
		c, err := q.Claim(id)
		mustOK(t, err)
		if id2, joined, _ := q.Submit(ctx, shellReq("git push", "s1")); !joined || id2 != id {
			t.Fatalf("claimed not joined")
		}
		approve(t, c, "pushed")
	})
	t.Run("done within the window joins, after it does not", func(t *testing.T) {
		clk := newClock()
		q := testQueue(t, WithClock(clk.now))
		id := submit(t, q, shellReq("git push", "s1"))
		c, err := q.Claim(id)
		mustOK(t, err)
		approve(t, c, "pushed")
		clk.add(9 * time.Minute)
		id2, joined, _ := q.Submit(ctx, shellReq("git push", "s1"))
		if !joined || id2 != id {
			t.Fatalf("done not joined")
		}
		if res, err := q.Wait(testCtx(t), id2); err != nil || res.Stdout != "pushed" {
			t.Fatalf("joined wait: %+v %v", res, err)
		}
		clk.add(2 * time.Minute)
		if _, joined, _ := q.Submit(ctx, shellReq("git push", "s1")); joined {
			t.Fatalf("joined after the window")
		}
	})
	t.Run("configurable window", func(t *testing.T) {
		clk := newClock()
		q := testQueue(t, WithClock(clk.now), WithJoinWindow(time.Minute))
		id := submit(t, q, shellReq("git push", "s1"))
		c, err := q.Claim(id)
		mustOK(t, err)
		approve(t, c, "pushed")
		clk.add(2 * time.Minute)
		if _, joined, _ := q.Submit(ctx, shellReq("git push", "s1")); joined {
			t.Fatalf("joined after a 1 min window")
		}
	})
	t.Run("withdrawn is asked again", func(t *testing.T) {
		q := testQueue(t)
		id := submit(t, q, shellReq("git push", "s1"))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		q.Wait(cctx, id)
		if id2, joined, _ := q.Submit(ctx, shellReq("git push", "s1")); joined || id2 == id {
			t.Fatalf("joined a withdrawn request")
		}
	})
	t.Run("concurrent identical submits make one request", func(t *testing.T) {
		q := testQueue(t)
		var wg sync.WaitGroup
		ids := make([]string, 8)
		for i := range ids {
			o := openIn(t, q.f.Root)
			wg.Go(func() { ids[i] = submit(t, o, shellReq("git push", "s1")) })
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("ids = %v", ids)
			}
		}
	})
}

func TestLimits(t *testing.T) {
	t.Run("101st pending is refused", func(t *testing.T) {
		q := testQueue(t)
		for i := range DefaultMaxPending {
			submit(t, q, shellReq("echo "+string(rune('a'+i%26))+string(rune('a'+i/26)), "s"))
		}
		_, _, err := q.Submit(context.Background(), shellReq("echo one more", "s"))
		if !errors.Is(err, ErrQueueFull) {
			t.Fatalf("101st: %v", err)
		}
		if n := names(t, q.f.Tmp()); len(n) != 0 {
			t.Fatalf("tmp/ = %v", n)
		}
	})
	t.Run("configurable", func(t *testing.T) {
		q := testQueue(t, WithMaxPending(2))
		submit(t, q, shellReq("a", "s"))
		submit(t, q, shellReq("b", "s"))
		if _, _, err := q.Submit(context.Background(), shellReq("c", "s")); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("3rd: %v", err)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		clk := newClock()
		q := testQueue(t, WithClock(clk.now), WithMaxPending(1))
		id := submit(t, q, shellReq("a", "s"))
		clk.add(DefaultExpiry + time.Second)
		if reqs, _ := q.Pending(); len(reqs) != 0 {
			t.Fatalf("still pending: %v", reqs)
		}
		res, err := q.Result(id)
		if err != nil || res.Decision != Expired || res.Approver.Surface != "expiry" {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
	t.Run("configurable expiry", func(t *testing.T) {
		clk := newClock()
		q := testQueue(t, WithClock(clk.now), WithExpiry(time.Minute))
		id := submit(t, q, shellReq("a", "s"))
		clk.add(30 * time.Second)
		if reqs, _ := q.Pending(); len(reqs) != 1 {
			t.Fatalf("expired before a 1 min expiry: %v", reqs)
		}
		clk.add(time.Minute)
		if reqs, _ := q.Pending(); len(reqs) != 0 {
			t.Fatalf("still pending after a 1 min expiry: %v", reqs)
		}
		if res, err := q.Result(id); err != nil || res.Decision != Expired {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
	t.Run("full queue expires old requests first", func(t *testing.T) {
		clk := newClock()
		q := testQueue(t, WithClock(clk.now), WithMaxPending(1))
		submit(t, q, shellReq("a", "s"))
		clk.add(DefaultExpiry + time.Second)
		submit(t, q, shellReq("b", "s"))
	})
	t.Run("future creation time expires", func(t *testing.T) {
		q := testQueue(t)
		r := shellReq("a", "s")
		r.Created = time.Now().Add(24 * time.Hour)
		id := submit(t, q, r)
		q.Pending()
		if res, err := q.Result(id); err != nil || res.Decision != Expired {
			t.Fatalf("result = %+v, %v", res, err)
		}
	})
}

func TestHeldBusLockDoesNotHang(t *testing.T) {
	q := testQueue(t)
	f, err := openLockFile(q.joinsDir()+"/.lock", true)
	mustOK(t, err)
	defer f.Close()
	if ok, err := tryLock(f); !ok {
		t.Fatalf("lock: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := q.Submit(ctx, shellReq("echo", "s")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("submit: %v", err)
	}
	if n := names(t, q.f.Tmp()); len(n) != 0 {
		t.Fatalf("tmp/ = %v", n)
	}
	// The abandoned wait lets go of the lock as soon as it gets it: once
	// the holder lets go, the bus works again.
	unlock(f)
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := q.Submit(ctx, shellReq("echo", "s")); err != nil {
		t.Fatalf("submit after release: %v", err)
	}
}

// Processes asking for the bus lock while it is held wait in the
// kernel's queue and all get it, however short their deadline compared
// with the time it is held in total.
func TestBusLockWaitersAllGetIt(t *testing.T) {
	q := testQueue(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n*20)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				unlockBus, err := q.lockBus(context.Background())
				if err != nil {
					errs <- err
					return
				}
				time.Sleep(100 * time.Microsecond)
				unlockBus()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
