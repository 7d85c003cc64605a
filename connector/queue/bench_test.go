package queue

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

func BenchmarkSubmit(b *testing.B) {
	q := testQueue(b, WithMaxPending(1<<30))
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		id, _, err := q.Submit(ctx, shellReq(fmt.Sprint("echo ", i), "s"))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer() // keep the queue realistic: a few pending, a small join index
		os.Remove(q.path(StatePending, id))
		q.takeWaiter(id)
		if i%500 == 0 {
			q.Recover()
		}
		b.StartTimer()
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	q := testQueue(b, WithMaxPending(1<<30))
	ids := make([]string, 0, 1024)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if len(ids) == 0 {
			for j := range 1024 {
				ids = append(ids, submit(b, q, shellReq(fmt.Sprint("echo ", i, j), "s")))
			}
			q.Close()
		}
		id := ids[len(ids)-1]
		ids = ids[:len(ids)-1]
		b.StartTimer()
		c, err := q.Claim(id)
		if err != nil {
			b.Fatal(err)
		}
		approve(b, c, "ok")
	}
}

// BenchmarkRoundTrip: a writer submits, an approver goroutine (notified
// by fsnotify) claims and completes, and the waiter (notified, or polling)
// returns with the result. p50-ns is the median round trip.
func BenchmarkRoundTrip(b *testing.B) {
	for _, m := range waitModes {
		b.Run(m.name, func(b *testing.B) {
			q := testQueue(b, m.opts...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go benchApprover(ctx, b, openIn(b, q.f.Root))
			var laps []time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				id := submit(b, q, shellReq(fmt.Sprint("echo ", i), "s"))
				if _, err := q.Wait(ctx, id); err != nil {
					b.Fatal(err)
				}
				laps = append(laps, time.Since(start))
			}
			slices.Sort(laps)
			b.ReportMetric(float64(laps[len(laps)/2].Nanoseconds()), "p50-ns")
		})
	}
}

func benchApprover(ctx context.Context, b *testing.B, q *Queue) {
	changes, err := q.Changes(ctx)
	if err != nil {
		b.Error(err)
		return
	}
	for range changes {
		reqs, _ := q.scan(StatePending) // what Pending does, minus Recover
		for _, r := range reqs {
			if c, err := q.ClaimShown(r.ID, r.Hash); err == nil {
				approve(b, c, "ok")
			}
		}
	}
}
