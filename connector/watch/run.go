package watch

import (
	"context"
	"errors"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

type decided struct {
	res *queue.Result
	err error
}

// approve runs the request through this process's broker, showing its
// output live.
func (s *watchSession) approve(ctx context.Context, it pendingItem, always bool, pattern string) error {
	return s.runApprove(ctx, it, approver.ApproveOptions{ShownHash: it.req.Hash, Always: always, Pattern: pattern})
}

// runApprove approves it with o. An "always" taken with [L] (s.forAll)
// is then stored in every other folder of the inbox too.
func (s *watchSession) runApprove(ctx context.Context, it pendingItem, o approver.ApproveOptions) error {
	all := s.forAll && o.Always
	s.forAll = false
	var rules []policy.Remembered
	if all {
		var err error
		if rules, err = it.wf.env.Approver.AlwaysRules(it.req, o); err != nil {
			s.out.printf("always for all agents is not available: %v; %s is still pending\n", err, it.req.ID)
			return nil
		}
	}
	s.out.printf("▶ approved %s; running\n", it.req.ID)
	var res *queue.Result
	err := s.running(ctx, func(onOutput func(string, []byte)) decided {
		o.OnOutput = onOutput
		r, err := it.wf.env.Approver.Approve(ctx, it.req.ID, o)
		res = r
		return decided{r, err}
	})
	if all && res != nil && res.Always != "" {
		s.rememberAll(it, rules)
	}
	return err
}

// running executes fn (an approval) while following the queues: requests
// arriving meanwhile are announced and ring the bell. Keys are not read
// meanwhile (they are type-ahead for a request not yet shown).
func (s *watchSession) running(ctx context.Context, fn func(onOutput func(string, []byte)) decided) error {
	live := newLiveOutput(s.out, 0)
	done := make(chan decided, 1)
	go func() { done <- fn(live.write) }()
	for {
		select {
		case d := <-done:
			live.flush()
			s.outcome(d)
			s.refresh()
			return nil
		case <-s.changed:
			s.refresh()
		case ms, ok := <-s.updates:
			if ok {
				s.sync(ctx, ms)
			} else {
				s.updates = nil
			}
		}
	}
}

// outcome prints how an approval ended.
func (s *watchSession) outcome(d decided) {
	res, err := d.res, d.err
	if res == nil {
		s.out.printf("✗ %v\n", err)
		return
	}
	switch {
	case res.Decision == queue.Denied && res.Approver.Surface == approver.SurfaceRemembered:
		s.out.printf("✗ %s denied: %s\n", res.ID, display.EscapeLine(res.Reason))
	case res.Decision == queue.Denied:
		s.out.printf("✗ %s was denied by %s first: %s\n", res.ID, res.Approver.User, display.EscapeLine(res.Reason))
	case res.Decision != queue.Approved:
		s.out.printf("✗ %s %s: %s\n", res.ID, res.Decision, display.EscapeLine(res.Reason))
	case res.Signal != "":
		s.out.printf("■ %s killed by %s after %s\n", res.ID, res.Signal, ms(res.DurationMS))
	case res.ExitCode != nil:
		s.out.printf("■ %s exited %d after %s\n", res.ID, *res.ExitCode, ms(res.DurationMS))
	default:
		s.out.printf("■ %s approved: %s\n", res.ID, display.EscapeLine(res.Reason))
	}
	if res.Always != "" {
		s.out.printf("  remembered: %s\n", display.EscapeLine(res.Always))
	}
	if err != nil && !errors.Is(err, approver.ErrDeniedBeforeStart) {
		s.out.printf("! %v\n", err)
	}
}

func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }

// autoDecide lets remembered decisions settle new requests; it reports
// whether it decided one.
func (s *watchSession) autoDecide(ctx context.Context) bool {
	for _, it := range s.pending {
		if s.autoTried[it.req.ID] {
			continue
		}
		s.autoTried[it.req.ID] = true
		m, ok := it.wf.env.Approver.Remembered(it.req)
		if !ok {
			continue
		}
		verb := "approved"
		if !m.Allow {
			verb = "denied"
		}
		s.out.printf("\n▶ %s %s by remembered decision %s: %s\n", it.req.ID, verb,
			display.EscapeLine(m.Pattern), queue.Summarize(it.req))
		_ = s.running(ctx, func(onOutput func(string, []byte)) decided {
			res, _, err := it.wf.env.Approver.Decide(ctx, it.req, approver.ApproveOptions{OnOutput: onOutput})
			return decided{res, err}
		})
		return true
	}
	return false
}
