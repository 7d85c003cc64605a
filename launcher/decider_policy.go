package launcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// DefaultNetWait bounds how long a connection waits for a human to
// decide its destination.
const DefaultNetWait = 10 * time.Minute

// PolicyDecider is the NetDecider of `sandbox run`: the folder's accepted
// policy decides each destination. Allowed passes; denied is refused
// with the policy's reasons (in the 403 body); escalated becomes a
// network request (source "proxy") on the folder's queue, and the
// connection waits for an approver: approved passes, anything else is
// refused with the approver's reason. Requests carry the run's session,
// so that concurrent connections to one destination share one request,
// and a decision stands for the queue's join window (10 minutes) before
// the human is asked again. "Approve always" stores a remembered decision
// (through the approver); the decider reloads the policy at each
// escalation and so sees it, and a newly accepted policy, at once.
//
// IP literals, loopback, link-local and metadata addresses are matched
// only by rules that name them as such: the policy engine never matches
// them with a name rule, and the proxy refuses a name that resolves to
// one of them.
type PolicyDecider struct {
	load    func() (*policy.Engine, error)
	q       *queue.Queue
	audit   audit.Appender
	root    string
	session string
	agent   string
	wait    time.Duration
	log     *slog.Logger

	mu     sync.Mutex
	engine *policy.Engine // guarded by mu: the last engine loaded
}

var _ NetDecider = (*PolicyDecider)(nil)

// Decide implements NetDecider.
func (d *PolicyDecider) Decide(ctx context.Context, host string, port int) (bool, string) {
	hostport := net.JoinHostPort(host, strconv.Itoa(port))
	dec, err := d.decide(hostport, false)
	if err == nil && dec.Decision == policy.Escalate {
		dec, err = d.decide(hostport, true) // remembered or newly accepted since
	}
	switch {
	case err != nil:
		return false, "the policy could not be loaded: " + err.Error()
	case dec.Decision == policy.Allow:
		return true, joinReasons(dec)
	case dec.Decision == policy.Deny:
		return false, "denied by the policy: " + joinReasons(dec)
	}
	return d.escalate(ctx, host, port, dec)
}

// decide asks the current engine, reloading it first when asked to.
func (d *PolicyDecider) decide(hostport string, reload bool) (policy.Decision, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.engine == nil || reload {
		e, err := d.load()
		if err != nil {
			return policy.Decision{}, err
		}
		d.engine = e
	}
	return d.engine.Network(hostport), nil
}

// escalate asks an approver and waits for the decision.
func (d *PolicyDecider) escalate(ctx context.Context, host string, port int, dec policy.Decision) (bool, string) {
	req := &queue.Request{
		Kind: queue.KindNetwork, Network: &queue.NetworkPayload{Host: host, Port: port},
		Cwd: d.root, Source: queue.SourceProxy, Agent: d.agent, Session: d.session,
		PolicyReasons: dec.Reasons,
	}
	id, joined, err := d.q.Submit(ctx, req)
	if err != nil {
		return false, "the destination needs approval, but the request failed: " + err.Error()
	}
	if !joined {
		if err := d.record(id, req.Hash, host, port); err != nil {
			d.q.Withdraw(id, "the audit log cannot be written")
			return false, "the destination needs approval, but " + err.Error()
		}
	}
	d.log.Info("proxy escalated", "target", net.JoinHostPort(host, strconv.Itoa(port)), "id", id, "joined", joined)
	wctx, cancel := context.WithTimeout(ctx, d.wait)
	defer cancel()
	res, err := d.q.Wait(wctx, id)
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return false, fmt.Sprintf("nobody decided within %s (request %s)", d.wait, id)
	case err != nil:
		return false, fmt.Sprintf("request %s: %v", id, err)
	case res.Decision == queue.Approved:
		return true, "approved by " + res.Approver.User
	case res.Decision == queue.Denied && res.Approver.Surface == approver.SurfaceCI:
		return false, fmt.Sprintf("denied in CI mode (request %s): %s", id, orNoReason(res.Reason))
	case res.Decision == queue.Denied:
		return false, fmt.Sprintf("denied by %s (request %s): %s", res.Approver.User, id, orNoReason(res.Reason))
	}
	return false, fmt.Sprintf("request %s %s: %s", id, res.Decision, orNoReason(res.Reason))
}

// record audits the escalation before anyone can decide it; an audit
// log that cannot be written refuses it.
func (d *PolicyDecider) record(id, hash, host string, port int) error {
	if d.audit == nil {
		return nil
	}
	_, err := d.audit.Append(audit.Entry{
		Actor: "proxy", Event: "proxy.escalate", RequestID: id, Decision: "escalate", ContentHash: hash,
		Detail: map[string]any{"host": host, "port": port},
	})
	if err != nil {
		return fmt.Errorf("the audit log cannot be written: %w", err)
	}
	return nil
}

func joinReasons(d policy.Decision) string {
	if len(d.Reasons) == 0 {
		return "no reason given"
	}
	return strings.Join(d.Reasons, "; ")
}

func orNoReason(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// FirstAllow lets a destination through when first allows it, and
// otherwise asks then (`sandbox run --allow-host` in front of the
// policy).
func FirstAllow(first, then NetDecider) NetDecider {
	return DeciderFunc(func(ctx context.Context, host string, port int) (bool, string) {
		if ok, reason := first.Decide(ctx, host, port); ok {
			return true, reason
		}
		return then.Decide(ctx, host, port)
	})
}
