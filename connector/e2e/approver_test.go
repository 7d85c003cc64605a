package e2e

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// decision is what the scripted approver does with one pending request:
// approve it (reason empty) or deny it with reason.
type decision struct {
	approve bool
	reason  string
}

// approver is a scripted human: it watches the folder's pending requests
// with `sandbox list --json` and answers each with `sandbox approve` or
// `sandbox deny`, as decide says.
type approver struct {
	e      *env
	dir    string
	decide func(queue.Summary) decision
	mu     sync.Mutex
	// seen holds the requests answered, in order, and shown what
	// `sandbox show --json` printed for each while it was pending.
	seen  []queue.Summary
	shown []string
}

// start runs the approver until the test ends.
func (e *env) approver(dir string, decide func(queue.Summary) decision) *approver {
	a := &approver{e: e, dir: dir, decide: decide}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.loop(ctx)
	}()
	e.t.Cleanup(func() {
		cancel()
		<-done
	})
	return a
}

func (a *approver) loop(ctx context.Context) {
	answered := map[string]bool{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		out, err := a.e.sandbox("list", "--json", "--state", "pending", "--dir", a.dir)
		if err != nil {
			continue
		}
		var items []queue.Summary
		if json.Unmarshal([]byte(out), &items) != nil {
			continue
		}
		for _, it := range items {
			if answered[it.ID] {
				continue
			}
			answered[it.ID] = true
			a.answer(it)
		}
	}
}

func (a *approver) answer(it queue.Summary) {
	shown, _ := a.e.sandbox("show", it.ID, "--json", "--dir", a.dir)
	a.mu.Lock()
	a.seen, a.shown = append(a.seen, it), append(a.shown, shown)
	a.mu.Unlock()
	d := a.decide(it)
	var out string
	var err error
	if d.approve {
		out, err = a.e.sandbox("approve", it.ID, "--hash", it.Hash, "--dir", a.dir)
	} else {
		out, err = a.e.sandbox("deny", it.ID, "--reason", d.reason, "--dir", a.dir)
	}
	if err != nil {
		a.e.t.Logf("approver: %s %s: %v\n%s", it.ID, it.Summary, err, out)
	}
}

// answered returns the requests the approver has seen.
func (a *approver) answered() []queue.Summary {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]queue.Summary(nil), a.seen...)
}

// shownFirst is what `sandbox show --json` printed for the first request.
func (a *approver) shownFirst() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.shown) == 0 {
		return ""
	}
	return a.shown[0]
}

func approveAll(queue.Summary) decision { return decision{approve: true} }

func onlyOne(t *testing.T, a *approver) queue.Summary {
	t.Helper()
	seen := a.answered()
	if len(seen) != 1 {
		t.Fatalf("the approver saw %d requests, want 1: %+v", len(seen), seen)
	}
	return seen[0]
}

// shownAt is what `sandbox show --json` printed for the i-th request.
func (a *approver) shownAt(i int) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i >= len(a.shown) {
		return ""
	}
	return a.shown[i]
}
