package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
)

// run runs the relay's loop until the test ends or stop is called.
func (m *machine) run(t testing.TB, url string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.relay.Run(ctx, func(ctx context.Context) (*natsconn.Conn, error) {
			return natsconn.Connect(ctx, natsconn.Options{URL: url})
		}, 1)
	}()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return sync.OnceFunc(stop)
}

func startBoard(t *testing.T, url string) *Board {
	b := &Board{Org: "acme", Dial: func(ctx context.Context) (*natsconn.Conn, error) {
		return natsconn.Connect(ctx, natsconn.Options{URL: url})
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return b
}

func onBoard(b *Board, id string) (Request, bool) {
	for _, r := range b.Pending() {
		if r.ID == id {
			return r, true
		}
	}
	return Request{}, false
}

// A remote approver's board shows what waits on every machine and drops
// what ended, however it ended: approved remotely (its output shown live,
// before the outcome exists), decided on its machine, or decided there
// while no relay ran.
func TestBoardLiveOutputAndEnds(t *testing.T) {
	s := startServer(t)
	url := s.ClientURL()
	alice := key(1)
	a := newMachine(t, "ws-a", "payments", "approvers:\n"+trust("alice", alice))
	stopRelay := a.run(t, url)
	b := startBoard(t, url)
	probe := dial(t, url)

	id := a.submit(t, "echo first-line; sleep 1; echo second-line >&2")
	testenv.WaitFor(t, "the request on the board", func() bool { _, ok := onBoard(b, id); return ok })
	r, _ := onBoard(b, id)
	c, err := b.Conn()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	beforeOutcome := false
	res, lost, err := DecideAndFollow(tctx(t), c, alice, r, team.Approve, "", "alice", time.Minute, func(stream string, p []byte) {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(string(p), "first-line") {
			_, err := probe.LastMsg(context.Background(), ResultsStream, resultSubject(r.Org, r.Host, r.Project, r.ID))
			beforeOutcome = errors.Is(err, natsconn.ErrNoMsg)
		}
		got = append(got, stream+":"+string(p))
	})
	if err != nil || lost || res.Decision != queue.Approved {
		t.Fatalf("outcome %+v lost %v: %v", res, lost, err)
	}
	joined := strings.Join(got, "|")
	if !strings.Contains(joined, "stdout:first-line") || !strings.Contains(joined, "stderr:second-line") || !beforeOutcome {
		t.Errorf("live output %q (first line before the outcome: %v)", joined, beforeOutcome)
	}
	testenv.WaitFor(t, "the approved request off the board", func() bool { _, ok := onBoard(b, id); return !ok })

	// decided on its machine: the relay publishes how it ended
	id2 := a.submit(t, "echo local")
	testenv.WaitFor(t, "the second request on the board", func() bool { _, ok := onBoard(b, id2); return ok })
	if _, err := a.f.Approver.Deny(tctx(t), id2, "not today"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the locally denied request off the board", func() bool { _, ok := onBoard(b, id2); return !ok })
	r2 := find2(t, probe, id2)
	if out, err := Outcome(tctx(t), probe, r2, ""); err != nil || out.Decision != queue.Denied || out.Reason != "not today" {
		t.Errorf("the local denial as NATS has it: %+v %v", out, err)
	}

	// decided while no relay ran: the next relay publishes it
	id3 := a.submit(t, "echo while-away")
	testenv.WaitFor(t, "the third request on the board", func() bool { _, ok := onBoard(b, id3); return ok })
	stopRelay()
	if _, err := a.f.Approver.Deny(tctx(t), id3, "decided while the relay was away"); err != nil {
		t.Fatal(err)
	}
	fo := *a.f // a new process's folder: nothing remembered
	fo.open, fo.caughtUp, fo.audit = nil, false, nil
	a2 := &machine{f: &fo, q: a.q, st: a.st, relay: &Relay{Org: "acme", Host: "ws-a", Folders: []*Folder{&fo}, Log: a.relay.Log}}
	a2.run(t, url)
	testenv.WaitFor(t, "the request decided while away off the board", func() bool { _, ok := onBoard(b, id3); return !ok })
	if p, err := Pending(tctx(t), probe, "acme"); err != nil || len(p) != 0 {
		t.Errorf("still pending on NATS: %+v %v", p, err)
	}
}

// find2 reads a request from the stream whether it is pending or not.
func find2(t *testing.T, c *natsconn.Conn, id string) Request {
	t.Helper()
	all, err := requests(tctx(t), c, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("%s is not on NATS", id)
	return Request{}
}

// What does not name itself as a relay would is never shown: a host or
// project that is not one token, an id that is not a queue id, a body
// that names another subject; nor does a forged outcome of that kind
// take a request off the board.
func TestBoardShowsOnlyWellFormedRequests(t *testing.T) {
	s := startServer(t)
	url := s.ClientURL()
	c := dial(t, url)
	if err := Setup(tctx(t), c, 1); err != nil {
		t.Fatal(err)
	}
	b := startBoard(t, url)
	good := Request{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01good", Hash: "h", Kind: "shell", Summary: "ls", Display: "run: ls", Created: time.Now()}
	publish := func(subject string, v any) {
		t.Helper()
		data, _ := json.Marshal(v)
		if _, err := c.PublishJS(tctx(t), subject, nil, data); err != nil && !errors.Is(err, natsconn.ErrBadSubject) {
			t.Fatal(err)
		}
	}
	bad := func(edit func(*Request)) Request { r := good; edit(&r); return r }
	for _, r := range []Request{
		bad(func(r *Request) { r.Host = "ws-b/pay"; r.ID = "01slash" }),
		bad(func(r *Request) { r.Project = "pay.x"; r.ID = "01dot" }),
		bad(func(r *Request) { r.ID = "../01" }),
	} {
		publish("sandbox.req.acme.ws-a.pay.x01", r)
		publish(requestSubject(r.Org, r.Host, r.Project, r.ID), r)
	}
	publish(requestSubject("acme", "ws-a", "pay", "01other"), good) // names 01good on 01other's subject
	publish(requestSubject("acme", "ws-a", "pay", "01good"), good)
	testenv.WaitFor(t, "the good request on the board", func() bool { _, ok := onBoard(b, "01good"); return ok })
	if p := b.Pending(); len(p) != 1 {
		t.Errorf("the board shows %d requests: %+v", len(p), p)
	}
	if p, err := Pending(tctx(t), c, "acme"); err != nil || len(p) != 1 {
		t.Errorf("Pending: %+v %v", p, err)
	}
	publish(resultSubject("acme", "ws-a", "pay", "01other"), Result{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01good"})
	time.Sleep(200 * time.Millisecond)
	if _, ok := onBoard(b, "01good"); !ok {
		t.Error("an outcome published on another request's subject took it off the board")
	}
}

// An outcome published on a request's result subject that names another
// request is never shown as that request's outcome.
func TestOutcomeNamingAnotherRequestIsRefused(t *testing.T) {
	s := startServer(t)
	c := dial(t, s.ClientURL())
	if err := Setup(tctx(t), c, 1); err != nil {
		t.Fatal(err)
	}
	r := Request{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01mine"}
	data, _ := json.Marshal(Result{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01other", Decision: "approved", Approver: "mallory"})
	if _, err := c.PublishJS(tctx(t), resultSubject(r.Org, r.Host, r.Project, r.ID), nil, data); err != nil {
		t.Fatal(err)
	}
	if res, ended, err := outcomeNow(tctx(t), c, r, ""); err == nil || !ended || res.Approver != "" {
		t.Fatalf("outcome = %+v, ended %v, %v", res, ended, err)
	}
	data, _ = json.Marshal(Result{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01mine", Decision: "approved", Approver: "bob"})
	if _, err := c.PublishJS(tctx(t), resultSubject(r.Org, r.Host, r.Project, r.ID), nil, data); err != nil {
		t.Fatal(err)
	}
	if res, ended, err := outcomeNow(tctx(t), c, r, ""); err != nil || !ended || res.Approver != "bob" {
		t.Fatalf("outcome = %+v, ended %v, %v", res, ended, err)
	}
}

// The board forgets a request's end once no stream can hold the request
// any more, and not before: a board that runs for weeks does not grow.
func TestBoardForgetsOldEnds(t *testing.T) {
	b := &Board{Org: "acme"}
	b.init()
	now := time.Now()
	b.ended["ws-a.pay.01old"] = now.Add(-endedKept - time.Minute)
	b.ended["ws-a.pay.01new"] = now.Add(-7 * 24 * time.Hour)
	b.forgetEnded(now)
	if _, ok := b.ended["ws-a.pay.01old"]; ok {
		t.Error("an end older than any stream's request is kept")
	}
	if _, ok := b.ended["ws-a.pay.01new"]; !ok {
		t.Error("an end forgotten while its request may still be in the stream")
	}
}

// Pending and the board read a stream of more requests than are read at
// once (inFlight) and held at once (storedWindow, made small here) whole
// and in order, with the stream's gaps (deleted, aged out), another
// organisation's requests, a request published twice (the last copy
// wins) and outcomes.
func TestPendingReadsManyRequests(t *testing.T) {
	old := storedWindow
	storedWindow = 50
	t.Cleanup(func() { storedWindow = old })
	s := startServer(t)
	url := s.ClientURL()
	c := dial(t, url)
	if err := Setup(tctx(t), c, 1); err != nil {
		t.Fatal(err)
	}
	publish := func(subject string, v any) uint64 {
		t.Helper()
		data, _ := json.Marshal(v)
		ack, err := c.PublishJS(tctx(t), subject, nil, data)
		if err != nil {
			t.Fatal(err)
		}
		return ack.Seq
	}
	var want []string
	for i := range 3 * inFlight {
		id := fmt.Sprintf("01r%03d", i)
		org := "acme"
		if i%10 == 3 {
			org = "other"
		}
		r := Request{V: 1, Org: org, Host: "ws-a", Project: "pay", ID: id, Hash: "h", Kind: "shell", Summary: "ls", Display: "run: ls", Created: time.Now()}
		seq := publish(requestSubject(r.Org, r.Host, r.Project, r.ID), r)
		switch {
		case org != "acme":
		case i%10 == 5: // deleted from the stream
			if err := c.DeleteMsg(tctx(t), RequestsStream, seq); err != nil {
				t.Fatal(err)
			}
		case i%7 == 0: // has its outcome
			publish(resultSubject(r.Org, r.Host, r.Project, r.ID), Result{V: 1, Org: r.Org, Host: r.Host, Project: r.Project, ID: r.ID, Decision: "approved"})
		default:
			want = append(want, id)
		}
	}
	again := Request{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01r001", Hash: "h2", Kind: "shell", Summary: "ls -l", Display: "run: ls -l", Created: time.Now()}
	publish(requestSubject("acme", "ws-a", "pay", "01r001"), again)
	ids := func(rs []Request) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	p, err := Pending(tctx(t), c, "acme")
	if err != nil || !slices.Equal(ids(p), want) {
		t.Fatalf("Pending: %v %v\nwant %v", ids(p), err, want)
	}
	if p[0].ID != "01r001" || p[0].Summary != "ls -l" {
		t.Errorf("a request published twice: %+v, want the last copy", p[0])
	}
	b := startBoard(t, url) // the board orders by creation: compared as sets
	testenv.WaitFor(t, "the board", func() bool { return slices.Equal(slices.Sorted(slices.Values(ids(b.Pending()))), want) })
}

func TestAuditFolder(t *testing.T) {
	for _, c := range []struct {
		host, project, subject string
		want                   bool
	}{
		{"", "", "sandbox.audit.acme.ws-a.pay", true},
		{"", "", "sandbox.audit.acmex.ws-a.pay", false},
		{"", "", "sandbox.audit.acme.ws-a.pay.x", false},
		{"ws-a", "", "sandbox.audit.acme.ws-b.pay", false},
		{"", "pay", "sandbox.audit.acme.ws-b.pay", true},
		{"ws-a", "pay", "sandbox.audit.acme.ws-a.pay", true},
	} {
		if _, _, got := auditFolder("acme", c.host, c.project, c.subject); got != c.want {
			t.Errorf("auditFolder(acme, %q, %q, %q) = %v", c.host, c.project, c.subject, got)
		}
	}
}
