package relay

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
	"github.com/sandbox-dev/sandbox/team/natstest"
)

func startServer(t testing.TB) *server.Server { return natstest.Start(t, nil) }

func dial(t *testing.T, url string) *natsconn.Conn {
	t.Helper()
	c, err := natsconn.Connect(context.Background(), natsconn.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func tctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// machine is one machine's folder: its own per-user state, queue, audit
// log and approver, and a policy that trusts keys.
type machine struct {
	f     *Folder
	q     *queue.Queue
	st    *userstate.State
	relay *Relay
}

func newMachine(t testing.TB, host, project string, approvers string) *machine {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := testenv.Folder(t, root)
	st, err := userstate.OpenDir(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	pol := "version: 1\nshell:\n  allow: [\"ls\"]\n" + approvers
	if err := os.WriteFile(f.Policy(), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := store.Accept(f, st, []byte(pol)); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(f, queue.WithKey(st.Key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	lg, err := audit.Open(f, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	ap, err := approver.New(approver.Options{Queue: q, Audit: lg, Identity: approver.Identity{User: "relay@" + host, Surface: approver.SurfaceRelay}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	fo := &Folder{Root: root, Project: project, Queue: q, Approver: ap,
		Policy:    func() (*policy.Engine, error) { e, _, err := store.Load(f, st, nil); return e, err },
		OpenAudit: func(after uint64) (AuditReader, error) { return audit.NewReader(f, st, after) }}
	return &machine{f: fo, q: q, st: st, relay: &Relay{Org: "acme", Host: host, Folders: []*Folder{fo}, Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}}
}

func (m *machine) submit(t testing.TB, script string) string {
	t.Helper()
	req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script},
		Cwd: m.f.Root, Source: queue.SourceCLI, Session: "s-" + queue.NewID()}
	id, _, err := m.q.Submit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func key(seed byte) ed25519.PrivateKey {
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	return ed25519.NewKeyFromSeed(s)
}

func trust(name string, k ed25519.PrivateKey, scope ...string) string {
	s := "  - {name: " + name + ", key: \"" + team.PublicKey(k) + "\""
	if len(scope) > 0 {
		s += ", scope: [\"" + strings.Join(scope, "\", \"") + "\"]"
	}
	return s + "}\n"
}

func find(t *testing.T, c *natsconn.Conn, id string) Request {
	t.Helper()
	pend, err := Pending(tctx(t), c, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pend {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("%s is not among the pending requests on NATS (%d)", id, len(pend))
	return Request{}
}

func auditEvents(t testing.TB, m *machine, event string) []audit.Record {
	t.Helper()
	var out []audit.Record
	root := m.f.Root
	f := testenv.Folder(t, root)
	audit.Read(context.Background(), f, m.st, 0, func(r audit.Record) error {
		if r.Event == event {
			out = append(out, r)
		}
		return nil
	})
	return out
}

// A request raised on machine A is approved from machine B through NATS,
// runs once on A, and its outcome is published; forged, replayed,
// out-of-scope and stale decisions are refused and audited; of two
// approvers deciding at once exactly one decision is carried out.
func TestRelayRemoteApproval(t *testing.T) {
	s := startServer(t)
	alice, bob, mallory, carol, dave := key(1), key(2), key(3), key(4), key(5)
	a := newMachine(t, "ws-a", "payments", "approvers:\n"+trust("alice", alice)+trust("bob", bob, "command:echo **")+
		trust("carol", carol)+trust("dave", dave))
	ca, cb := dial(t, s.ClientURL()), dial(t, s.ClientURL())
	col := newCollector(t)
	a.relay.OTLP = &OTLP{URL: col.url}
	if err := Setup(tctx(t), ca, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.relay.Attach(tctx(t), ca); err != nil {
		t.Fatal(err)
	}
	step := func() {
		t.Helper()
		if err := a.relay.Step(tctx(t), ca, 300*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	id := a.submit(t, "echo remote-ok")
	step()
	r := find(t, cb, id)
	if r.Host != "ws-a" || r.Project != "payments" || !strings.Contains(r.Display, "echo remote-ok") || len(r.Reasons) == 0 {
		t.Errorf("published request: %+v", r)
	}
	first, err := Decide(tctx(t), cb, alice, r, team.Approve, "", "alice", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decide(tctx(t), cb, alice, r, team.Approve, "", "alice", time.Now()); !errors.Is(err, ErrDecided) {
		t.Errorf("a second decision of the same key: %v", err)
	}
	step()
	res, err := a.q.Result(id)
	if err != nil || res.Decision != queue.Approved || !strings.Contains(res.Stdout, "remote-ok") || !strings.Contains(res.Approver.User, "alice") {
		t.Fatalf("on A: %+v %v", res, err)
	}
	out, err := Outcome(tctx(t), cb, r, first.Key)
	if err != nil || out.Decision != queue.Approved || !strings.Contains(out.Output, "remote-ok") || out.Approver != "alice" {
		t.Errorf("the outcome B sees: %+v %v", out, err)
	}
	if p, _ := Pending(tctx(t), cb, "acme"); len(p) != 0 {
		t.Errorf("a decided request is still pending on NATS: %+v", p)
	}
	// bob decides the same request late: nothing runs twice
	Decide(tctx(t), cb, bob, r, team.Approve, "", "bob", time.Now())
	step()
	if n := len(auditEvents(t, a, "exec.end")); n != 1 {
		t.Errorf("%d executions, want 1", n)
	}

	// refused: an unknown key, a key outside its scope, a decision replayed
	// for another request, one for content that changed, a stale one
	id2 := a.submit(t, "touch forged-ran")
	step()
	r2 := find(t, cb, id2)
	Decide(tctx(t), cb, mallory, r2, team.Approve, "", "alice", time.Now())
	Decide(tctx(t), cb, bob, r2, team.Approve, "", "bob", time.Now()) // bob: echo only
	// alice's valid decision on the first request, written again for this one
	data, _ := json.Marshal(first)
	if _, err := cb.KVCreate(tctx(t), DecisionsKV, DecisionKey("acme", "ws-a", "payments", id2, first.Key), data); err != nil {
		t.Fatal(err)
	}
	Decide(tctx(t), cb, dave, r2, team.Approve, "", "dave", time.Now().Add(-time.Hour))
	step()
	if _, err := Outcome(tctx(t), cb, r2, team.PublicKey(bob)); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "outside what the policy trusts") {
		t.Errorf("bob is not told why his decision was refused: %v", err)
	}
	if _, err := a.q.Result(id2); err == nil {
		t.Fatal("a refused decision was carried out")
	}
	if _, err := os.Stat(filepath.Join(a.f.Root, "forged-ran")); err == nil {
		t.Fatal("a forged decision ran its command")
	}
	refusals := auditEvents(t, a, "team.decision.refused")
	var whys []string
	for _, rec := range refusals {
		var d map[string]any
		json.Unmarshal(rec.Detail, &d)
		whys = append(whys, d["why"].(string))
	}
	for _, want := range []error{team.ErrUnknownKey, team.ErrOutOfScope, team.ErrWrongRequest, team.ErrStale} {
		found := false
		for _, w := range whys {
			found = found || strings.Contains(w, want.Error())
		}
		if !found {
			t.Errorf("no refusal audited for %q: %v", want, whys)
		}
	}
	// the request is still there for a valid decision
	if _, err := Decide(tctx(t), cb, carol, r2, team.Deny, "not today", "carol", time.Now()); err != nil {
		t.Fatal(err)
	}
	step()
	if res, err := a.q.Result(id2); err != nil || res.Decision != queue.Denied || res.Reason != "not today" {
		t.Errorf("carol's denial: %+v %v", res, err)
	}

	// two approvers at once: exactly one decision is carried out
	id3 := a.submit(t, "echo once >> once.txt")
	step()
	r3 := find(t, cb, id3)
	var wg sync.WaitGroup
	for i, k := range []ed25519.PrivateKey{alice, bob} {
		wg.Go(func() {
			c := dial(t, s.ClientURL())
			if _, err := Decide(tctx(t), c, k, r3, team.Approve, "", []string{"alice", "bob"}[i], time.Now()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	step()
	step()
	if b, _ := os.ReadFile(filepath.Join(a.f.Root, "once.txt")); string(b) != "once\n" {
		t.Errorf("once.txt = %q: want one execution", b)
	}

	// the audit records reached the stream, in order, each once
	step()
	si, err := cb.StreamInfo(tctx(t), AuditStream)
	if err != nil {
		t.Fatal(err)
	}
	var local int
	audit.Read(context.Background(), testenv.Folder(t, a.f.Root), a.st, 0, func(audit.Record) error { local++; return nil })
	if int(si.State.Msgs) != local || local == 0 {
		t.Errorf("the audit stream holds %d records, the folder %d", si.State.Msgs, local)
	}
	if err := cb.DeleteMsg(tctx(t), AuditStream, 1); err == nil {
		t.Error("the audit stream let a record be deleted")
	}
	if err := cb.PurgeStream(tctx(t), AuditStream); err == nil {
		t.Error("the audit stream let itself be purged")
	}
	chains, err := VerifyAudit(tctx(t), cb, "acme", "", "")
	if err != nil || len(chains) != 1 || !chains[0].Report.OK || chains[0].Report.Records != local || chains[0].Project != "payments" {
		t.Errorf("verify from the stream: %+v %v", chains, err)
	}
	// the OpenTelemetry collector got every record (its first answer was
	// a refusal: those came again with the next)
	if seqs := col.seqs(); len(seqs) != local || seqs[0] != 1 || seqs[len(seqs)-1] != uint64(local) {
		t.Errorf("the collector got records %v, want 1..%d", seqs, local)
	}
}

// collector is an OTLP/HTTP logs receiver that refuses its first request.
type collector struct {
	url string
	mu  sync.Mutex
	got map[uint64]bool
	n   int
}

func newCollector(t *testing.T) *collector {
	c := &collector{got: map[uint64]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.n++
		if r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "wrong endpoint", http.StatusNotFound)
			return
		}
		if c.n == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		var body struct {
			ResourceLogs []struct {
				ScopeLogs []struct {
					LogRecords []struct {
						Body       struct{ StringValue string }
						Attributes []struct {
							Key   string
							Value struct{ IntValue string }
						}
					}
				}
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rl := range body.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					for _, a := range lr.Attributes {
						if a.Key == "sandbox.seq" {
							n, _ := strconv.ParseUint(a.Value.IntValue, 10, 64)
							c.got[n] = true
						}
					}
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	c.url = srv.URL
	return c
}

func (c *collector) seqs() []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []uint64
	for s := range c.got {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// audit verify --nats's check: the stream's copy of a folder's log with
// a record missing (a stream made without deny_delete, or a relay that
// skipped one) fails, and says which.
func TestVerifyAuditFindsARemovedRecord(t *testing.T) {
	s := startServer(t)
	c := dial(t, s.ClientURL())
	m := newMachine(t, "ws-a", "payments", "")
	for range 5 {
		id := m.submit(t, "echo x")
		m.f.Approver.Deny(context.Background(), id, "no")
	}
	var lines [][]byte
	readAllLines(t, m, func(l []byte) { lines = append(lines, l) })
	if len(lines) < 4 {
		t.Fatalf("%d records", len(lines))
	}
	if _, err := c.AddStream(tctx(t), natsconn.StreamConfig{Name: AuditStream, Subjects: []string{"sandbox.audit.>"}}); err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if i == 2 {
			continue // removed
		}
		if _, err := c.PublishJS(tctx(t), auditSubject("acme", "ws-a", "payments"), nil, l); err != nil {
			t.Fatal(err)
		}
	}
	chains, err := VerifyAudit(tctx(t), c, "acme", "ws-a", "payments")
	if err != nil || len(chains) != 1 {
		t.Fatalf("%+v %v", chains, err)
	}
	rep := chains[0].Report
	if rep.OK || rep.FirstBad == nil || !strings.Contains(rep.FirstBad.Message, "record 3 missing") {
		t.Errorf("a removed record went unnoticed: %+v", rep.FirstBad)
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func approverOpts() approver.ApproveOptions { return approver.ApproveOptions{} }

func readRuns(t *testing.T, m *machine) string {
	b, _ := os.ReadFile(filepath.Join(m.f.Root, "runs.txt"))
	return string(b)
}

func readAllLines(t *testing.T, m *machine, each func([]byte)) {
	audit.Read(context.Background(), testenv.Folder(t, m.f.Root), m.st, 0, func(r audit.Record) error { each(r.Line); return nil })
}

func readAll(t *testing.T, m *machine, each func()) {
	audit.Read(context.Background(), testenv.Folder(t, m.f.Root), m.st, 0, func(audit.Record) error { each(); return nil })
}

// A flood of forged decisions costs the machine at most RefusalsPerMinute
// audit records a minute; the rest are counted, and the count is audited
// with the next refusal audited.
func TestRelayBoundsAuditedRefusals(t *testing.T) {
	s := startServer(t)
	alice, mallory := key(1), key(3)
	a := newMachine(t, "ws-a", "payments", "approvers:\n"+trust("alice", alice))
	now := time.Now()
	a.relay.Now = func() time.Time { return now }
	ca, cb := dial(t, s.ClientURL()), dial(t, s.ClientURL())
	if err := Setup(tctx(t), ca, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.relay.Attach(tctx(t), ca); err != nil {
		t.Fatal(err)
	}
	forge := func(n int) {
		t.Helper()
		for range n {
			r := Request{V: 1, Org: "acme", Host: "ws-a", Project: "payments", ID: queue.NewID(), Hash: "h"}
			if _, err := Decide(tctx(t), cb, mallory, r, team.Approve, "", "alice", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		for range (n + 15) / 16 { // 16 decisions a step
			if err := a.relay.Step(tctx(t), ca, 500*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
	}
	forge(RefusalsPerMinute + 30)
	if n := len(auditEvents(t, a, "team.decision.refused")); n != RefusalsPerMinute {
		t.Fatalf("%d refusals audited in a minute, want %d", n, RefusalsPerMinute)
	}
	now = now.Add(time.Minute)
	forge(1)
	recs := auditEvents(t, a, "team.decision.refused")
	if len(recs) != RefusalsPerMinute+1 {
		t.Fatalf("%d refusals audited, want %d", len(recs), RefusalsPerMinute+1)
	}
	var d map[string]any
	json.Unmarshal(recs[len(recs)-1].Detail, &d)
	if d["refused_before_not_audited"] != float64(30) {
		t.Errorf("the next refusal audited does not say how many were not: %v", d)
	}
}
