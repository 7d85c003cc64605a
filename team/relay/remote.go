package relay

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sandbox-dev/sandbox/audit"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
)

// Pending lists the requests of org whose outcome no relay published
// yet, oldest first (what a remote approver's credentials let it read of
// the requests and results streams).
func Pending(ctx context.Context, c *natsconn.Conn, org string) ([]Request, error) {
	all, err := requests(ctx, c, org)
	if err != nil {
		return nil, err
	}
	return withoutOutcome(ctx, c, all)
}

// inFlight bounds the stream reads one call keeps waiting at once: each
// is a round trip, and a week of an organisation's requests read one
// after the other took a round trip per request (twice: the request,
// then its outcome).
const inFlight = 64

// each runs get(i) for i in [0, n), at most inFlight at once; the first
// error ends the others and is returned.
func each(ctx context.Context, n int, get func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	slots := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	for i := 0; i < n && ctx.Err() == nil; i++ {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := get(ctx, i); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// withoutOutcome keeps the requests whose outcome is not published, in
// their order.
func withoutOutcome(ctx context.Context, c *natsconn.Conn, all []Request) ([]Request, error) {
	open := make([]bool, len(all))
	err := each(ctx, len(all), func(ctx context.Context, i int) error {
		r := all[i]
		_, err := c.LastMsg(ctx, ResultsStream, resultSubject(r.Org, r.Host, r.Project, r.ID))
		switch {
		case errors.Is(err, natsconn.ErrNoMsg) || errors.Is(err, natsconn.ErrNoStream):
			open[i] = true
		case err != nil:
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Request
	for i, r := range all {
		if open[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// requests reads the requests stream (each request once: a relay that
// published one again is de-duplicated by the stream, and the last copy
// wins here).
func requests(ctx context.Context, c *natsconn.Conn, org string) ([]Request, error) {
	out, _, err := requestsAfter(ctx, c, org, 0)
	return out, err
}

// requestsAfter reads the requests of org stored after sequence number
// after (storedAfter), and the last sequence number read.
func requestsAfter(ctx context.Context, c *natsconn.Conn, org string, after uint64) ([]Request, uint64, error) {
	seen := map[string]int{}
	var out []Request
	last, err := storedAfter(ctx, c, RequestsStream, after, func(m *natsconn.StoredMsg) {
		if !strings.HasPrefix(m.Subject, "sandbox.req.") {
			return
		}
		var r Request
		if json.Unmarshal(m.Data, &r) != nil || !wellFormed(r.Org, r.Host, r.Project, r.ID) || m.Subject != requestSubject(r.Org, r.Host, r.Project, r.ID) {
			return // not what a relay publishes: never shown
		}
		if org != "" && r.Org != org {
			return
		}
		k := r.Host + "." + r.Project + "." + r.ID
		if i, ok := seen[k]; ok {
			out[i] = r
			return
		}
		seen[k] = len(out)
		out = append(out, r)
	})
	if err != nil {
		return nil, after, err
	}
	return out, last, nil
}

// storedAfter hands fn, in order, each message stream stores after
// sequence number after, up to its last when asked (what arrives later
// is the next call's), and returns the last number read. Messages are
// read by their numbers, inFlight at once, a window of storedWindow at
// a time (what is held at once); a number the stream no longer holds
// (deleted, aged out) is skipped.
func storedAfter(ctx context.Context, c *natsconn.Conn, stream string, after uint64, fn func(*natsconn.StoredMsg)) (last uint64, err error) {
	info, err := c.StreamInfo(ctx, stream)
	if errors.Is(err, natsconn.ErrNoStream) {
		return after, nil
	}
	if err != nil {
		return after, err
	}
	first, last := max(after+1, info.State.FirstSeq), info.State.LastSeq
	if last < first {
		return max(after, last), nil
	}
	for from := first; from <= last; from += storedWindow {
		window := make([]*natsconn.StoredMsg, min(storedWindow, last-from+1))
		err := each(ctx, len(window), func(ctx context.Context, i int) error {
			m, err := c.GetMsg(ctx, stream, from+uint64(i))
			if errors.Is(err, natsconn.ErrNoMsg) {
				return nil
			}
			window[i] = m
			return err
		})
		if err != nil {
			return after, err
		}
		for _, m := range window {
			if m != nil {
				fn(m)
			}
		}
	}
	return last, nil
}

// storedWindow is how many stored messages storedAfter holds at once.
var storedWindow uint64 = 1024

// Find returns the published request whose id is id (or starts with it,
// when that is unambiguous).
func Find(ctx context.Context, c *natsconn.Conn, org, id string) (Request, error) {
	all, err := requests(ctx, c, org)
	if err != nil {
		return Request{}, err
	}
	var hits []Request
	for _, r := range all {
		if r.ID == id {
			return r, nil
		}
		if strings.HasPrefix(r.ID, id) {
			hits = append(hits, r)
		}
	}
	switch len(hits) {
	case 0:
		return Request{}, fmt.Errorf("%s: no such request on NATS", id)
	case 1:
		return hits[0], nil
	}
	return Request{}, fmt.Errorf("%s: names %d requests: give more of the id", id, len(hits))
}

// ErrDecided: this key decided the request already.
var ErrDecided = errors.New("you decided this request already")

// Decide signs a decision on r with priv and writes it, once per key.
// Which of several approvers' decisions is carried out is the first the
// request's relay finds valid (Outcome tells).
func Decide(ctx context.Context, c *natsconn.Conn, priv ed25519.PrivateKey, r Request, verdict, reason, name string, now time.Time) (team.Decision, error) {
	if verdict == team.Approve && r.Truncated {
		return team.Decision{}, fmt.Errorf("%s: its display was cut (%d KiB shown): approve it on %s, where it is shown whole", r.ID, maxDisplay>>10, r.Host)
	}
	d := team.Sign(priv, team.Decision{Request: r.ID, Hash: r.Hash, Host: r.Host, Project: r.Project,
		Verdict: verdict, Reason: reason, Approver: name, Decided: now})
	data, _ := json.Marshal(d)
	k := DecisionKey(r.Org, r.Host, r.Project, r.ID, d.Key)
	if _, err := c.KVCreate(ctx, DecisionsKV, k, data); err != nil {
		if errors.Is(err, natsconn.ErrKeyExists) {
			// this very decision, stored by an attempt whose
			// acknowledgement was lost (a server failing over), counts
			if e, gerr := c.KVGet(ctx, DecisionsKV, k); gerr == nil {
				var stored team.Decision
				if json.Unmarshal(e.Value, &stored) == nil && stored.Sig == d.Sig {
					return d, nil
				}
			}
			return d, fmt.Errorf("%s: %w", r.ID, ErrDecided)
		}
		return d, err
	}
	return d, nil
}

// ErrRefused: the request's relay refused the decision (Refusal.Why
// says why).
var ErrRefused = errors.New("the request's machine refused this decision")

// Outcome waits for the result of r to be published (its machine's relay
// carried a decision out, or r ended otherwise), or for the relay's
// refusal of the decision of key, until ctx ends.
func Outcome(ctx context.Context, c *natsconn.Conn, r Request, key string) (Result, error) {
	return Follow(ctx, c, r, key, nil, nil)
}

// Follow is Outcome that also hands r's live output to fn as it comes
// (out: FollowOutput, subscribed before the decision was written).
func Follow(ctx context.Context, c *natsconn.Conn, r Request, key string, out *OutputFollower, fn func(stream string, p []byte)) (Result, error) {
	var outC <-chan *natsconn.Msg
	if out != nil {
		outC = out.sub.C()
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		res, done, err := outcomeNow(ctx, c, r, key)
		if done || err != nil {
			if out != nil && err == nil {
				out.drain(ctx, 2*time.Second, fn)
			}
			return res, err
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return Result{}, ctx.Err()
			case m, ok := <-outC:
				if !ok {
					outC = nil
					continue
				}
				out.take(m, fn)
			case <-tick.C:
				break wait
			}
		}
	}
}

// outcomeNow looks once for r's result, and for the refusal of key's
// decision.
func outcomeNow(ctx context.Context, c *natsconn.Conn, r Request, key string) (Result, bool, error) {
	m, err := c.LastMsg(ctx, ResultsStream, resultSubject(r.Org, r.Host, r.Project, r.ID))
	if err == nil {
		var res Result
		if err := json.Unmarshal(m.Data, &res); err != nil {
			return res, true, err
		}
		if res.Org != r.Org || res.Host != r.Host || res.Project != r.Project || res.ID != r.ID {
			// not what a relay publishes there: never shown as r's outcome
			return Result{}, true, fmt.Errorf("%s: the outcome published for it names another request", r.ID)
		}
		return res, true, nil
	}
	if !errors.Is(err, natsconn.ErrNoMsg) && !errors.Is(err, natsconn.ErrNoStream) {
		return Result{}, false, err
	}
	if key != "" {
		if m, err := c.LastMsg(ctx, ResultsStream, refusalSubject(r.Org, r.Host, r.Project, r.ID, key)); err == nil {
			var ref Refusal
			json.Unmarshal(m.Data, &ref)
			return Result{}, true, fmt.Errorf("%s: %w: %s", r.ID, ErrRefused, ref.Why)
		}
	}
	return Result{}, false, nil
}

// AuditChain is one folder's audit records as the stream holds them,
// verified as a chain.
type AuditChain struct {
	Host, Project string
	Report        *audit.Report
}

// VerifyAudit reads the audit records of org from the stream (of host
// and project, when not empty; the stream is read whole, many records at
// once: it is mostly what an auditor asks for) and verifies each
// folder's chain
// (audit.VerifyChain: without the machines' keys, the chain links and
// the sequence).
func VerifyAudit(ctx context.Context, c *natsconn.Conn, org, host, project string) ([]AuditChain, error) {
	lines := map[string][][]byte{}
	var out []AuditChain // in the order the stream first holds each folder
	_, err := storedAfter(ctx, c, AuditStream, 0, func(m *natsconn.StoredMsg) {
		h, p, ok := auditFolder(org, host, project, m.Subject)
		if !ok {
			return
		}
		if _, seen := lines[m.Subject]; !seen {
			out = append(out, AuditChain{Host: h, Project: p})
		}
		lines[m.Subject] = append(lines[m.Subject], m.Data)
	})
	if err != nil {
		return nil, err
	}
	for i, ch := range out {
		s := auditSubject(org, ch.Host, ch.Project)
		out[i].Report = audit.VerifyChain(s, lines[s], nil)
	}
	return out, nil
}

// auditFolder says whose audit records subject carries, when they are
// org's (and host's, project's, when not empty).
func auditFolder(org, host, project, subject string) (h, p string, ok bool) {
	t := strings.Split(subject, ".")
	if len(t) != 5 || subject != auditSubject(org, t[3], t[4]) {
		return "", "", false
	}
	if host != "" && t[3] != host || project != "" && t[4] != project {
		return "", "", false
	}
	return t[3], t[4], true
}

// DecideAndFollow writes the decision of priv on r (Decide) and waits
// for r's outcome, handing the live output of an approval to onOutput as
// its machine runs it (subscribed before the decision is written: none
// of it is missed but what the network loses, and lost tells that).
func DecideAndFollow(ctx context.Context, c *natsconn.Conn, priv ed25519.PrivateKey, r Request, verdict, reason, name string,
	wait time.Duration, onOutput func(stream string, p []byte)) (res Result, lost bool, err error) {
	out, err := FollowOutput(c, r)
	if err != nil {
		return Result{}, false, err
	}
	defer out.Close()
	d, err := Decide(ctx, c, priv, r, verdict, reason, name, time.Now())
	if err != nil {
		return Result{}, false, err
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	res, err = Follow(wctx, c, r, d.Key, out, onOutput)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("%s: no outcome yet (its relay may be offline; it carries the decision out when it is back): %w", r.ID, err)
	}
	return res, out.Lost, err
}
