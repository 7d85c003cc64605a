package approver

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// appendID is a request that appends its marker to executed.txt and
// prints it: cheap (no shell), and counting lines shows how often it ran.
func (tf *testFolder) appendID(t testing.TB, marker string) *queue.Request {
	t.Helper()
	return tf.submit(t, &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{
		Argv: []string{"tee", "-a", "executed.txt"}, Stdin: []byte(marker + "\n")}})
}

// Two approvers (each with its own queue and audit handles, as two
// processes would have) racing over the same requests never both run one.
func TestTwoApproversNeverBothExecute(t *testing.T) {
	tf := newTestFolder(t)
	other := openTestFolder(t, tf.f.Root)
	approvers := []*Approver{tf.approver(t, SurfaceWatch, nil), other.approver(t, SurfaceCLI, nil)}
	const n = 40
	var ids []string
	for i := range n {
		ids = append(ids, tf.appendID(t, "m"+string(rune('a'+i%26))+queue.NewID()).ID)
	}
	var mu sync.Mutex
	ran := map[string]int{}
	var wg sync.WaitGroup
	for _, a := range approvers {
		order := slices.Clone(ids)
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		wg.Go(func() {
			for _, id := range order {
				res, err := a.Approve(context.Background(), id, ApproveOptions{})
				switch {
				case err == nil && res.Decision == queue.Approved:
					mu.Lock()
					ran[id]++
					mu.Unlock()
				case errors.Is(err, ErrAlreadyTaken), errors.Is(err, ErrAlreadyDecided):
				default:
					t.Errorf("%s: %+v, %v", id, res, err)
				}
			}
		})
	}
	wg.Wait()
	for _, id := range ids {
		if ran[id] != 1 {
			t.Errorf("%s executed %d times by approvers", id, ran[id])
		}
	}
	if got := len(tf.lines(t, "executed.txt")); got != n {
		t.Errorf("executed.txt has %d lines, want %d", got, n)
	}
	tf.verifyAudit(t)
}

// An approve racing a deny on each request: exactly one wins, and a
// successful deny always means the command did not run.
func TestApproveRacingDeny(t *testing.T) {
	tf := newTestFolder(t)
	other := openTestFolder(t, tf.f.Root)
	approving, denying := tf.approver(t, SurfaceCLI, nil), other.approver(t, SurfaceWatch, nil)
	for range 30 {
		marker := "r" + queue.NewID()
		req := tf.appendID(t, marker)
		var approveErr, denyErr error
		var approved *queue.Result
		var wg sync.WaitGroup
		wg.Go(func() { approved, approveErr = approving.Approve(context.Background(), req.ID, ApproveOptions{}) })
		wg.Go(func() { _, denyErr = denying.Deny(context.Background(), req.ID, "no") })
		wg.Wait()
		executed := slices.Contains(tf.lines(t, "executed.txt"), marker)
		final, err := tf.q.Result(req.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case denyErr == nil:
			if executed || final.Decision != queue.Denied || approveErr == nil {
				t.Fatalf("deny won but executed=%v final=%s approve=%v", executed, final.Decision, approveErr)
			}
		case errors.Is(denyErr, ErrTooLate), errors.Is(denyErr, ErrAlreadyDecided):
			if !executed || approveErr != nil || approved.Decision != queue.Approved || final.Decision != queue.Approved {
				t.Fatalf("approval won but executed=%v approve=%v final=%s", executed, approveErr, final.Decision)
			}
		default:
			t.Fatalf("deny: %v", denyErr)
		}
	}
	tf.verifyAudit(t)
}
