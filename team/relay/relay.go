package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
)

// Folder is one project folder this relay serves.
type Folder struct {
	Root    string
	Project string // a subject token (Token)
	Queue   *queue.Queue
	// Approver executes the decisions that check out, as every local
	// approver does (claim, audit, grant jail, result).
	Approver *approver.Approver
	// Policy loads the folder's accepted policy (its approvers: list).
	Policy func() (*policy.Engine, error)
	// OpenAudit reads the folder's audit records after seq, incrementally
	// (audit.NewReader); nil publishes none.
	OpenAudit func(after uint64) (AuditReader, error)

	auditAt uint64      // the last audit record published
	audit   AuditReader // reading from auditAt on this connection; nil: find where the stream stands

	// open are the requests published whose end is not yet (guarded by
	// Relay.mu); caughtUp is set once the ends missed while no relay
	// ran were published (once per process).
	open     map[string]bool
	caughtUp bool

	refusals refusalBudget // guarded by Relay.mu
}

// RefusalsPerMinute bounds the refused decisions a relay audits and
// answers per folder and minute: anyone who may put in the decisions
// bucket can send forged ones as fast as the network carries them, and
// each must not cost the machine an audit record. Past it, refusals are
// only counted, and the count is audited with the next refusal audited.
const RefusalsPerMinute = 60

// refusalBudget is one folder's count of refusals in the current minute.
type refusalBudget struct {
	start      time.Time
	n          int
	suppressed int
}

// take reports whether one more refusal may be audited at now, and how
// many were suppressed since the last one audited (to audit with it);
// refused, it says how many are suppressed so far.
func (b *refusalBudget) take(now time.Time) (ok bool, suppressed int) {
	if now.Sub(b.start) >= time.Minute || now.Before(b.start) {
		b.start, b.n = now, 0
	}
	if b.n >= RefusalsPerMinute {
		b.suppressed++
		return false, b.suppressed
	}
	b.n++
	suppressed, b.suppressed = b.suppressed, 0
	return true, suppressed
}

// AuditReader is an incremental reader of a folder's audit records.
type AuditReader interface {
	Poll(ctx context.Context, fn func(audit.Record) error) error
}

// Relay serves a machine's folders on one NATS connection at a time.
type Relay struct {
	Org, Host string // subject tokens
	Folders   []*Folder
	Now       func() time.Time
	Log       *slog.Logger
	// OTLP, when set, also exports every audit record published as an
	// OpenTelemetry log record (a SIEM's collector).
	OTLP *OTLP

	mu        sync.Mutex
	published map[string]bool // project/id of requests published on this connection
}

// consumer is the durable consumer of this host's decisions.
func (r *Relay) consumer() string { return "relay-" + r.Org + "-" + r.Host }

func (r *Relay) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Relay) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Setup makes the streams, the bucket and this host's consumer of
// decisions (each is found as it is when another relay made it).
func Setup(ctx context.Context, c *natsconn.Conn, replicas int) error {
	for _, s := range []natsconn.StreamConfig{
		{Name: RequestsStream, Subjects: []string{"sandbox.req.>"}, Replicas: replicas, MaxAge: 7 * 24 * time.Hour, Duplicates: time.Hour},
		{Name: ResultsStream, Subjects: []string{"sandbox.res.>", "sandbox.ref.>"}, Replicas: replicas, MaxAge: 7 * 24 * time.Hour, Duplicates: time.Hour},
		{Name: AuditStream, Subjects: []string{"sandbox.audit.>"}, Replicas: replicas, Duplicates: time.Hour, DenyDelete: true, DenyPurge: true},
	} {
		if _, err := c.AddStream(ctx, s); err != nil {
			return fmt.Errorf("stream %s: %w", s.Name, err)
		}
	}
	if err := c.AddKV(ctx, DecisionsKV, replicas, 1); err != nil {
		return fmt.Errorf("bucket %s: %w", DecisionsKV, err)
	}
	return nil
}

// Attach readies the relay on a new connection: its consumer, and where
// each folder's audit records stand in the stream.
func (r *Relay) Attach(ctx context.Context, c *natsconn.Conn) error {
	err := c.AddConsumer(ctx, "KV_"+DecisionsKV, natsconn.ConsumerConfig{Durable: r.consumer(),
		FilterSubject: "$KV." + DecisionsKV + "." + r.Org + "." + r.Host + ".>", AckWait: 30 * time.Minute})
	if err != nil {
		return fmt.Errorf("decisions consumer: %w", err)
	}
	r.mu.Lock()
	r.published = map[string]bool{}
	r.mu.Unlock()
	for _, f := range r.Folders {
		f.audit = nil
	}
	return nil
}

// Step does one round: publish new requests, carry out the decisions
// that arrived (waiting up to wait for the first), publish new audit
// records.
func (r *Relay) Step(ctx context.Context, c *natsconn.Conn, wait time.Duration) error {
	for _, f := range r.Folders {
		if err := r.publishPending(ctx, c, f); err != nil {
			return err
		}
	}
	msgs, err := c.Fetch(ctx, "KV_"+DecisionsKV, r.consumer(), 16, wait)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if err := r.apply(ctx, c, m); err != nil {
			return err
		}
	}
	for _, f := range r.Folders {
		if err := r.publishEnded(ctx, c, f); err != nil {
			return err
		}
		if err := r.publishAudit(ctx, c, f); err != nil {
			return err
		}
	}
	return nil
}

// Run serves until ctx ends, connecting with dial and connecting again
// (with a growing pause) whenever the connection fails. Local approval
// never depends on it.
func (r *Relay) Run(ctx context.Context, dial func(context.Context) (*natsconn.Conn, error), replicas int) error {
	return reconnect(ctx, func(ctx context.Context) error { return r.session(ctx, dial, replicas) }, func(err error, retry time.Duration) {
		r.log().Warn("relay: NATS unavailable; local approval goes on", "err", err, "retry", retry)
	})
}

// reconnect runs session until ctx ends, and again after each failure
// (failed is told first) with a pause growing from 100 ms to 10 s: the
// relay's and the remote approvers' connections.
func reconnect(ctx context.Context, session func(context.Context) error, failed func(err error, retry time.Duration)) error {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := session(ctx)
		if ctx.Err() != nil {
			break
		}
		failed(err, pause)
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 10*time.Second)
	}
	return ctx.Err()
}

func (r *Relay) session(ctx context.Context, dial func(context.Context) (*natsconn.Conn, error), replicas int) error {
	c, err := dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := Setup(ctx, c, replicas); err != nil {
		return err
	}
	if err := r.Attach(ctx, c); err != nil {
		return err
	}
	r.log().Info("relay: connected", "server", c.ServerVersion(), "folders", len(r.Folders))
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	go func() { errs <- r.publishLoop(sctx, c) }()
	go func() { errs <- r.decisionLoop(sctx, c) }()
	err = <-errs
	cancel()
	<-errs
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// publishLoop publishes each folder's new requests and audit records as
// soon as its queue changes (file system notification), and every second
// besides.
func (r *Relay) publishLoop(ctx context.Context, c *natsconn.Conn) error {
	wake := make(chan struct{}, 1)
	for _, f := range r.Folders {
		ch, err := f.Queue.Changes(ctx)
		if err != nil {
			return err
		}
		go func() {
			for range ch {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		for _, f := range r.Folders {
			if err := r.publishPending(ctx, c, f); err != nil {
				return err
			}
			if err := r.publishEnded(ctx, c, f); err != nil {
				return err
			}
			if err := r.publishAudit(ctx, c, f); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Done():
			return c.Err()
		case <-wake:
		case <-tick.C:
		}
	}
}

// decisionLoop carries out the decisions as they arrive (a long poll of
// the consumer).
func (r *Relay) decisionLoop(ctx context.Context, c *natsconn.Conn) error {
	for ctx.Err() == nil {
		// one at a time: a pull of more would be held open after the first
		// until the rest came or it expired
		msgs, err := c.Fetch(ctx, "KV_"+DecisionsKV, r.consumer(), 1, 5*time.Second)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if err := r.apply(ctx, c, m); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// publishPending publishes the folder's pending requests not published
// on this connection yet (the stream drops a request published again
// within its duplicate window: a restarted relay sends them all again).
func (r *Relay) publishPending(ctx context.Context, c *natsconn.Conn, f *Folder) error {
	reqs, _ := f.Queue.Pending()
	var eng *policy.Engine
	for _, req := range reqs {
		key := f.Project + "/" + req.ID
		r.mu.Lock()
		done := r.published[key]
		r.mu.Unlock()
		if done {
			continue
		}
		if eng == nil && f.Policy != nil {
			eng, _ = f.Policy()
		}
		pub := r.describe(f, req, eng)
		data, _ := json.Marshal(pub)
		hdr := natsconn.Header{natsconn.HeaderMsgID: {r.Host + "." + f.Project + "." + req.ID}}
		if _, err := c.PublishJS(ctx, requestSubject(r.Org, r.Host, f.Project, req.ID), hdr, data); err != nil {
			return fmt.Errorf("publish %s: %w", req.ID, err)
		}
		r.mu.Lock()
		r.published[key] = true
		if f.open == nil {
			f.open = map[string]bool{}
		}
		f.open[req.ID] = true
		r.mu.Unlock()
	}
	return nil
}

// publishEnded publishes the outcome of every request that ended since
// it was published, whoever decided it (a local approver, the waiter
// giving up, the expiry): remote approvers stop showing it. Once per
// process it first publishes the ends it may have missed while no relay
// ran: those since the folder's last audit record on the stream (a
// relay publishes the folder's records as they come), less a minute.
func (r *Relay) publishEnded(ctx context.Context, c *natsconn.Conn, f *Folder) error {
	if !f.caughtUp {
		since := r.now().Add(-7 * 24 * time.Hour)
		last, err := c.LastMsg(ctx, AuditStream, auditSubject(r.Org, r.Host, f.Project))
		switch {
		case errors.Is(err, natsconn.ErrNoMsg) || errors.Is(err, natsconn.ErrNoStream):
		case err != nil:
			return err
		default:
			var rec audit.Record
			if json.Unmarshal(last.Data, &rec) == nil && !rec.Time.IsZero() {
				since = rec.Time.Add(-time.Minute)
			}
		}
		ids, err := f.Queue.Ended(since)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if res, err := f.Queue.Result(id); err == nil {
				if err := r.publishResult(ctx, c, f, res, ""); err != nil {
					return err
				}
			}
		}
		f.caughtUp = true
	}
	r.mu.Lock()
	ids := make([]string, 0, len(f.open))
	for id := range f.open {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	for _, id := range ids {
		if !f.Queue.HasResult(id) && f.Queue.Waits(id) {
			continue // still waiting (a look at two names: the loop runs on every change)
		}
		res, err := f.Queue.Result(id)
		if err == nil {
			if err := r.publishResult(ctx, c, f, res, ""); err != nil {
				return err
			}
		}
		r.mu.Lock()
		delete(f.open, id)
		r.mu.Unlock()
	}
	return nil
}

// describe is a request as remote approvers see it: rendered from what
// the relay read, with the policy's reasons recomputed here.
func (r *Relay) describe(f *Folder, req *queue.Request, eng *policy.Engine) Request {
	text := Display(req)
	pub := Request{V: 1, Org: r.Org, Host: r.Host, Project: f.Project, ID: req.ID, Hash: req.ComputeHash(),
		Kind: req.Kind, Summary: queue.Summarize(req), Display: text, Agent: req.Agent, Source: req.Source,
		Session: req.Session, Created: req.Created}
	if len(text) > maxDisplay {
		pub.Display, pub.Truncated = text[:maxDisplay], true
	}
	if eng != nil {
		for _, p := range approver.Classify(eng, req).Parts {
			if p.Decision != policy.Allow {
				pub.Reasons = append(pub.Reasons, p.Decision.String()+": "+p.Effect+": "+p.Reason)
			}
		}
	}
	return pub
}

// Display renders what a request asks for, whole.
func Display(req *queue.Request) string {
	switch {
	case req.Kind == queue.KindShell && req.Shell != nil && req.Shell.Argv != nil:
		return "run: " + strings.Join(quoteAll(req.Shell.Argv), " ") + "\nin: " + req.Cwd
	case req.Kind == queue.KindShell && req.Shell != nil:
		return "run (" + req.Shell.Shell + "):\n" + req.Shell.Script + "\nin: " + req.Cwd
	case req.Kind == queue.KindWrite && req.Write != nil && req.Write.Content != nil:
		return "write " + req.Write.Path + ":\n" + *req.Write.Content
	case req.Kind == queue.KindWrite && req.Write != nil:
		var b strings.Builder
		b.WriteString("edit " + req.Write.Path + ":")
		for _, e := range req.Write.Edits {
			b.WriteString("\n--- replace" + map[bool]string{true: " (all)"}[e.ReplaceAll] + ":\n" + e.OldString + "\n+++ with:\n" + e.NewString)
		}
		return b.String()
	case req.Kind == queue.KindRead && req.Read != nil:
		return "read " + req.Read.Path
	case req.Kind == queue.KindNetwork && req.Network != nil && req.Network.URL != "":
		return "connect to " + req.Network.URL
	case req.Kind == queue.KindNetwork && req.Network != nil:
		return "connect to " + req.Network.Host + ":" + strconv.Itoa(req.Network.Port)
	case req.Kind == queue.KindMCP && req.MCP != nil:
		return "call MCP tool " + req.MCP.Tool + " with " + string(req.MCP.Arguments)
	}
	return queue.Summarize(req)
}

func quoteAll(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strconv.Quote(a)
	}
	return out
}

// apply carries out one decision message, or refuses it; either way it
// is acknowledged once done with (a decision is never carried out twice:
// the request's claim is the guard, as for every approver).
func (r *Relay) apply(ctx context.Context, c *natsconn.Conn, m *natsconn.Msg) error {
	key := strings.TrimPrefix(m.Subject, "$KV."+DecisionsKV+".")
	parts := strings.Split(key, ".")
	var f *Folder
	if len(parts) == 5 && parts[0] == r.Org && parts[1] == r.Host {
		for _, cand := range r.Folders {
			if cand.Project == parts[2] {
				f = cand
			}
		}
	}
	if f == nil {
		r.log().Warn("relay: a decision for no folder of this relay", "key", key)
		return c.Ack(ctx, m)
	}
	id := parts[3]
	var d team.Decision
	if err := json.Unmarshal(m.Data, &d); err != nil || DecisionKey(r.Org, r.Host, f.Project, id, d.Key) != key {
		r.refuse(ctx, c, f, id, "", team.ErrMalformed, &d)
		return c.Ack(ctx, m)
	}
	req, state, err := f.Queue.Load(id)
	if res, rerr := f.Queue.Result(id); (err != nil || req == nil) && rerr == nil && res != nil {
		r.log().Info("relay: a decision for a request already decided", "id", id, "decision", res.Decision)
		// its approver learns how it ended instead of waiting
		if err := r.publishResult(ctx, c, f, res, ""); err != nil {
			return err
		}
		return c.Ack(ctx, m)
	}
	if err != nil || req == nil {
		r.refuse(ctx, c, f, id, "", fmt.Errorf("no such request here: %w", team.ErrWrongRequest), &d)
		return c.Ack(ctx, m)
	}
	if state != queue.StatePending {
		// decided here first (a local approver, or this relay before a
		// restart): nothing to do, and nothing runs twice
		r.log().Info("relay: a decision for a request already decided", "id", id, "state", state)
		return c.Ack(ctx, m)
	}
	var pol *policy.Policy
	if f.Policy != nil {
		if e, err := f.Policy(); err == nil && e != nil && e.Status() != policy.StatusNothingAccepted {
			pol = e.Policy()
		}
	}
	a, err := team.Verify(&d, team.Target{Req: req, Host: r.Host, Project: f.Project}, pol, f.Root, r.now())
	if err != nil {
		r.refuse(ctx, c, f, id, req.Hash, err, &d)
		return c.Ack(ctx, m)
	}
	who := approver.Identity{User: a.Name + " (team key)", Surface: approver.SurfaceRelay}
	// its end is published below, naming the key (publishEnded must not
	// publish it first)
	r.mu.Lock()
	wasOpen := f.open[id]
	delete(f.open, id)
	r.mu.Unlock()
	var res *queue.Result
	if d.Verdict == team.Approve {
		out := newOutputPublisher(c, outputSubject(r.Org, r.Host, f.Project, id))
		res, err = f.Approver.ApproveAs(ctx, id, who, approver.ApproveOptions{ShownHash: d.Hash, OnOutput: out.write})
		out.close()
	} else {
		res, err = f.Approver.DenyAs(ctx, id, d.Reason, who)
	}
	if err != nil && res == nil {
		if errors.Is(err, approver.ErrAlreadyDecided) || errors.Is(err, approver.ErrAlreadyTaken) || errors.Is(err, approver.ErrTooLate) {
			return c.Ack(ctx, m)
		}
		r.log().Warn("relay: carrying out a decision", "id", id, "err", err)
		return c.Ack(ctx, m)
	}
	if res != nil {
		if err := r.publishResult(ctx, c, f, res, a.Name); err != nil {
			return err
		}
	} else if wasOpen {
		r.mu.Lock()
		f.open[id] = true
		r.mu.Unlock()
	}
	return c.Ack(ctx, m)
}

// refuse audits a decision that is not carried out, and tells its
// approver why.
func (r *Relay) refuse(ctx context.Context, c *natsconn.Conn, f *Folder, id, hash string, why error, d *team.Decision) {
	r.mu.Lock()
	ok, suppressed := f.refusals.take(r.now())
	r.mu.Unlock()
	if !ok {
		if suppressed == 1 {
			r.log().Warn("relay: too many refused decisions this minute: the rest are counted, not audited", "project", f.Project, "limit", RefusalsPerMinute)
		}
		return
	}
	detail := map[string]any{"why": why.Error(), "key": d.Key, "claimed_approver": d.Approver, "verdict": d.Verdict}
	if suppressed > 0 {
		detail["refused_before_not_audited"] = suppressed
	}
	if err := f.Approver.RecordRefusal(id, hash, "team.decision.refused", detail); err != nil {
		r.log().Warn("relay: could not audit a refused decision", "id", id, "err", err)
	}
	r.log().Warn("relay: decision refused", "id", id, "why", why)
	if d.Key == "" || !queue.ValidID(id) {
		return
	}
	data, _ := json.Marshal(Refusal{V: 1, ID: id, Key: d.Key, Why: why.Error()})
	hdr := natsconn.Header{natsconn.HeaderMsgID: {r.Host + "." + f.Project + "." + id + ".refused." + keyID(d.Key)}}
	if _, err := c.PublishJS(ctx, refusalSubject(r.Org, r.Host, f.Project, id, d.Key), hdr, data); err != nil {
		r.log().Warn("relay: could not publish a refusal", "id", id, "err", err)
	}
}

// publishResult publishes how a request ended; who names the team key
// that decided it ("" for a decision taken on the machine: the result's
// approver and surface).
func (r *Relay) publishResult(ctx context.Context, c *natsconn.Conn, f *Folder, res *queue.Result, who string) error {
	if who == "" {
		who = res.Approver.User + " (" + res.Approver.Surface + ")"
	}
	out := res.Stdout
	if res.Stderr != "" {
		out += res.Stderr
	}
	if len(out) > 16<<10 {
		out = out[:16<<10] + "\n[... the rest is in the machine's results/ log]"
	}
	pub := Result{V: 1, Org: r.Org, Host: r.Host, Project: f.Project, ID: res.ID, Hash: res.RequestHash,
		Decision: res.Decision, Approver: who, Reason: res.Reason, ExitCode: res.ExitCode, Output: out, Finished: r.now().UTC()}
	data, _ := json.Marshal(pub)
	hdr := natsconn.Header{natsconn.HeaderMsgID: {r.Host + "." + f.Project + "." + res.ID + ".result"}}
	_, err := c.PublishJS(ctx, resultSubject(r.Org, r.Host, f.Project, res.ID), hdr, data)
	return err
}

// publishAudit sends the folder's audit records the stream lacks, in
// order, each once (its sequence number is its de-duplication id).
func (r *Relay) publishAudit(ctx context.Context, c *natsconn.Conn, f *Folder) error {
	if f.OpenAudit == nil {
		return nil
	}
	subj := auditSubject(r.Org, r.Host, f.Project)
	if f.audit == nil {
		last, err := c.LastMsg(ctx, AuditStream, subj)
		switch {
		case errors.Is(err, natsconn.ErrNoMsg):
			f.auditAt = 0
		case err != nil:
			return err
		default:
			var rec audit.Record
			if err := json.Unmarshal(last.Data, &rec); err != nil {
				return fmt.Errorf("the audit stream's last record of %s: %w", f.Project, err)
			}
			f.auditAt = rec.Seq
		}
		rd, err := f.OpenAudit(f.auditAt)
		if err != nil {
			return err
		}
		f.audit = rd
	}
	err := f.audit.Poll(ctx, func(rec audit.Record) error {
		data := rec.Line // the bytes the chain hashes (audit.VerifyChain)
		if len(data) == 0 {
			return fmt.Errorf("audit record %d of %s: no line to publish", rec.Seq, f.Project)
		}
		hdr := natsconn.Header{natsconn.HeaderMsgID: {r.Host + "." + f.Project + ".audit." + strconv.FormatUint(rec.Seq, 10)}}
		if _, err := c.PublishJS(ctx, subj, hdr, data); err != nil {
			return err
		}
		f.auditAt = rec.Seq
		if r.OTLP != nil {
			if n := r.OTLP.add(r.Org, r.Host, f.Project, rec); n > 0 {
				r.log().Warn("relay: the OpenTelemetry collector is behind: oldest records not exported (NATS and the folder keep them)", "dropped", n)
			}
		}
		return nil
	})
	if err != nil {
		f.audit = nil // read again from the last record published
	}
	if r.OTLP != nil {
		if oerr := r.OTLP.send(ctx); oerr != nil {
			r.log().Warn("relay: OpenTelemetry export; retried with the next records", "err", oerr)
		}
	}
	return err
}
