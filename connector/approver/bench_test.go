package approver

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// BenchmarkRoundTrip is the machine round trip of the loop: a request is
// written, an approver notices it through file notification (as watch
// does), the broker runs /bin/true, and the waiter has the result.
// Reported: the median and p90 per round trip.
func BenchmarkRoundTrip(b *testing.B) {
	tf := newTestFolder(b)
	writer := openTestFolder(b, tf.f.Root) // the agent's side: its own queue
	a := tf.approver(b, SurfaceCI, nil)
	ctx, cancel := context.WithCancel(context.Background())
	changes, err := tf.q.Changes(ctx)
	if err != nil {
		b.Fatal(err)
	}
	looped := make(chan struct{})
	go func() { autoApproveLoop(ctx, a, changes); close(looped) }()
	defer func() { cancel(); <-looped }()
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		req := &queue.Request{Kind: queue.KindShell, Cwd: tf.f.Root, Source: queue.SourceCLI,
			Session: queue.NewID(), Shell: &queue.ShellPayload{Argv: []string{"/bin/true"}}}
		id, _, err := writer.q.Submit(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		res, err := writer.q.Wait(ctx, id)
		if err != nil || res.Decision != queue.Approved {
			b.Fatalf("%+v %v", res, err)
		}
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	reportQuantiles(b, samples)
}

// autoApproveLoop approves every pending request as it appears (test only).
func autoApproveLoop(ctx context.Context, a *Approver, changes <-chan struct{}) {
	for range changes {
		reqs, _ := a.q.Pending()
		for _, r := range reqs {
			_, err := a.Approve(ctx, r.ID, ApproveOptions{ShownHash: r.Hash})
			if err != nil && !errors.Is(err, ErrAlreadyTaken) && !errors.Is(err, ErrAlreadyDecided) {
				return
			}
		}
	}
}

// BenchmarkTrueDirect runs /bin/true directly, the baseline.
func BenchmarkTrueDirect(b *testing.B) {
	samples := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	reportQuantiles(b, samples)
}

func reportQuantiles(b *testing.B, s []time.Duration) {
	if len(s) == 0 {
		return
	}
	slices.Sort(s)
	b.ReportMetric(float64(s[len(s)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(s[len(s)*9/10].Microseconds())/1000, "p90-ms")
}
