package launcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
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
// one of them. A destination on this machine (OnThisMachine) that no rule
// names is refused outright instead of escalated, except the host's
// loopback addresses themselves (127.0.0.1, ::1: a database or a model
// server the developer runs), which a human is asked about like any
// unknown destination when a client reaches them through the proxy. A rule
// ("127.0.0.1:5432" or "localhost:5432") also forwards the port onto the
// jail's loopback, where clients that bypass the proxy connect.
type PolicyDecider struct {
	load    func() (*policy.Engine, error)
	q       *queue.Queue
	audit   audit.Appender
	root    string
	session string
	agent   string
	wait    time.Duration
	log     *slog.Logger

	// first, when set, is the bus's first load of the policy, which
	// ForwardPorts uses rather than loading it again at every jail start.
	first func() *policy.Engine

	mu     sync.Mutex
	engine *policy.Engine // guarded by mu: the last engine loaded
}

var _ NetDecider = (*PolicyDecider)(nil)

// Decide implements NetDecider.
func (d *PolicyDecider) Decide(ctx context.Context, host string, port int) (bool, string) {
	dec, err := d.decideHost(host, port, false)
	if err == nil && dec.Decision == policy.Escalate {
		dec, err = d.decideHost(host, port, true) // remembered or newly accepted since
	}
	switch {
	case err != nil:
		return false, "the policy could not be loaded: " + err.Error()
	case dec.Decision == policy.Escalate && OnThisMachine(host) && !named(dec) && !hostLoopback(host):
		return false, LocalRefusal(host, port)
	case dec.Decision == policy.Allow:
		return true, joinReasons(dec)
	case dec.Decision == policy.Deny:
		return false, "denied by the policy: " + joinReasons(dec)
	}
	if aliased(host, dec) {
		host = "localhost" // 127.0.0.1 and ::1 under a localhost:PORT rule: one request, as the rule says
	}
	return d.escalate(ctx, host, port, dec)
}

// hostLoopback reports the host's loopback addresses, 127.0.0.1 and ::1
// (also IPv4-mapped): the destinations a human may be asked about. Names
// for them (localhost, ...) are not: the proxy's dial guard refuses a
// name that resolves to loopback, so an approval could not be honoured;
// a localhost:PORT rule covers both addresses. Other addresses of this
// machine (127.0.0.2, its LAN addresses, 0.0.0.0) are never asked about:
// only a rule opens them.
func hostLoopback(host string) bool {
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	return ip == loopback4 || ip == netip.IPv6Loopback()
}

// aliased reports a loopback address decided by a localhost:PORT rule.
func aliased(host string, dec policy.Decision) bool {
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback() && named(dec) && namesPort(dec) &&
		strings.HasPrefix(strings.ToLower(dec.Parts[0].Rule), "localhost:")
}

// decideHost decides host:port; a loopback address that no rule names
// is also decided as localhost:port, so that either spelling of a rule
// for a loopback service ("127.0.0.1:5432", "localhost:5432") opens it.
func (d *PolicyDecider) decideHost(host string, port int, reload bool) (policy.Decision, error) {
	dec, err := d.decide(net.JoinHostPort(host, strconv.Itoa(port)), reload)
	if err != nil || named(dec) {
		return dec, err
	}
	if ip, perr := netip.ParseAddr(host); perr == nil && ip.Unmap().IsLoopback() {
		alias, aerr := d.decide(net.JoinHostPort("localhost", strconv.Itoa(port)), false)
		if aerr == nil && named(alias) && namesPort(alias) {
			return alias, nil
		}
	}
	return dec, nil
}

// namesPort reports a decision whose rules all name a loopback service
// with its port ("localhost:11434"): a bare "localhost" rule is a name
// rule, and name rules never match an address.
func namesPort(dec policy.Decision) bool {
	for _, p := range dec.Parts {
		if _, ok := loopbackPort(p.Rule); !ok {
			return false
		}
	}
	return true
}

// named reports a decision that a rule of the policy (or a remembered
// decision) made, not the default or a built-in escalation.
func named(dec policy.Decision) bool {
	for _, p := range dec.Parts {
		if p.Rule == "" || p.Rule == "default" || strings.HasPrefix(p.Rule, "builtin:") {
			return false
		}
	}
	return len(dec.Parts) > 0
}

// LocalRefusal is the reason given for a destination on this machine
// that no rule names: the jail never reaches the host's own services by
// default, and a human is not asked about one unless a rule says so.
func LocalRefusal(host string, port int) string {
	hp := net.JoinHostPort(host, strconv.Itoa(port))
	return hp + " is a service on this machine, which the jail reaches only through a network rule " +
		"that names it (in .sandbox/policy.yaml: network: allow or escalate \"" + hp + "\"; a human accepts the change)"
}

// ForwardPorts implements PortForwarder: the ports of the accepted
// policy's network allow and escalate rules that name 127.0.0.1, ::1 or
// localhost with a port.
func (d *PolicyDecider) ForwardPorts() []int {
	d.mu.Lock()
	e := d.engine
	d.mu.Unlock()
	if e == nil && d.first != nil {
		e = d.first()
	}
	if e == nil {
		var err error
		if e, err = d.load(); err != nil {
			return nil
		}
	}
	if e.Status() == policy.StatusNothingAccepted {
		return nil
	}
	rs := e.Policy().Rules[policy.Network]
	if rs == nil {
		return nil
	}
	var ports []int
	for _, r := range append(slices.Clone(rs.Allow), rs.Escalate...) {
		if p, ok := loopbackPort(r.Pattern); ok {
			ports = append(ports, p)
		}
	}
	return ports
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
