package launcher

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// ciParallel bounds the requests a CI approver executes at once.
const ciParallel = 4

// ciGrace is how long executions started by a CI approver may go on once
// the run is over, before they are cancelled.
const ciGrace = 30 * time.Second

// CIApprover is the approver and broker of `sandbox run --ci`, in the
// supervisor (Surface "ci"): it decides every request that arrives in the
// folder's queue while the run lasts, without a human. The policy's ci:
// section decides (policy.Engine.CI): a request it allows is approved and
// executed, anything else is denied at once with a message that tells
// the agent why and how to allow it. Every decision goes into the report.
type CIApprover struct {
	b     *Bus
	ap    *approver.Approver
	since time.Time
	log   *slog.Logger

	mu   sync.Mutex
	seen map[string]bool // guarded by mu: requests taken
	rep  []CIEscalation  // guarded by mu: outcomes, in decision order
}

func newCIApprover(b *Bus) *CIApprover {
	return &CIApprover{b: b, log: b.log, seen: map[string]bool{}, since: time.Now().Add(-time.Second)}
}

func (c *CIApprover) open() error {
	var env []string
	if e, err := c.b.load(); err == nil && e.Status() != policy.StatusNothingAccepted {
		env = e.Policy().Broker.Env
	}
	// approved commands run in grant jails: a ci: approve rule for git
	// must not become unattended code execution with the pipeline's
	// secrets through a hook the agent planted
	ap, err := approver.New(approver.Options{
		Queue: c.b.q, Audit: c.b.audit, Identity: approver.NewIdentity(approver.SurfaceCI),
		EnvPass: env, Logger: c.log,
		Jail:   &GrantJail{Folder: c.b.f, StateDir: c.b.st.Dir, Logger: c.log},
		Policy: c.b.load,
	})
	c.ap = ap
	return err
}

// Serve decides arriving requests until ctx ends, then waits (up to
// ciGrace) for the executions it started.
func (c *CIApprover) Serve(ctx context.Context) {
	exec, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	changes, err := c.b.q.Changes(ctx)
	if err != nil {
		c.log.Warn("CI approver: no change notification; polling", "err", err)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var wg sync.WaitGroup
	sem := make(chan struct{}, ciParallel)
	for ctx.Err() == nil {
		for _, r := range c.arrived() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				c.decide(exec, r)
			}()
		}
		select {
		case <-ctx.Done():
		case <-changes:
		case <-tick.C:
		}
	}
	stop := time.AfterFunc(ciGrace, cancel)
	defer stop.Stop()
	wg.Wait()
}

// arrived returns the pending requests this run has not taken yet:
// those created since it started.
func (c *CIApprover) arrived() []*queue.Request {
	reqs, _ := c.b.q.Pending()
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*queue.Request
	for _, r := range reqs {
		if !c.seen[r.ID] && !r.Created.Before(c.since) {
			c.seen[r.ID] = true
			out = append(out, r)
		}
	}
	return out
}

// decide approves or denies one request and records the outcome.
func (c *CIApprover) decide(ctx context.Context, r *queue.Request) {
	e := CIEscalation{ID: r.ID, Kind: string(r.Kind), Source: r.Source, Subject: queue.Summarize(r), At: time.Now().UTC()}
	verdict, why := c.verdict(r)
	e.Rule = why
	var res *queue.Result
	var err error
	if verdict {
		res, err = c.ap.Approve(ctx, r.ID, approver.ApproveOptions{ShownHash: r.Hash})
	} else {
		res, err = c.ap.Deny(ctx, r.ID, why)
	}
	e.fill(res, err, verdict)
	c.log.Info("CI decision", "id", r.ID, "outcome", e.Outcome, "why", why)
	c.mu.Lock()
	c.rep = append(c.rep, e)
	c.mu.Unlock()
}

// verdict asks the ci: section: true to approve; why names the rule or
// says what was not approved, in words for the agent.
func (c *CIApprover) verdict(r *queue.Request) (bool, string) {
	e, err := c.b.load()
	if err != nil {
		return false, "the policy could not be loaded: " + err.Error()
	}
	ci, err := e.CI()
	if err != nil {
		return false, "the ci: section could not be built: " + err.Error()
	}
	d := approver.Classify(ci, r)
	switch d.Decision {
	case policy.Allow:
		return true, "approved by the ci: section: " + partRules(d, policy.Allow)
	case policy.Deny:
		return false, "denied by the ci: section: " + strings.Join(d.Reasons, "; ")
	}
	trigger := "shell"
	if len(d.Parts) > 0 {
		trigger = string(d.Parts[0].Trigger)
	}
	return false, fmt.Sprintf("no human to ask in CI mode, and the policy's ci: section does not approve it "+
		"(%s); to allow it, add a matching rule under `ci: %s: approve:` in .sandbox/policy.yaml",
		strings.Join(d.Reasons, "; "), trigger)
}

// partRules lists the rules that decided the parts of tier t.
func partRules(d policy.Decision, t policy.Tier) string {
	var rules []string
	for _, p := range d.Parts {
		if p.Decision == t {
			rules = append(rules, "`"+p.Rule+"`")
		}
	}
	return strings.Join(rules, ", ")
}

// Report returns the decisions so far, in order.
func (c *CIApprover) Report() []CIEscalation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]CIEscalation(nil), c.rep...)
}
