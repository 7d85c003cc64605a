package serve

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/remote"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// fakeTeam is team mode without NATS: requests set by the test, and a
// decision that streams output and ends as told.
type fakeTeam struct {
	mu      sync.Mutex
	reqs    []remote.Request
	changes chan struct{}
	decided []string // key verdict reason hash
	release chan struct{}
}

func (f *fakeTeam) Pending() []remote.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]remote.Request(nil), f.reqs...)
}
func (f *fakeTeam) Changes() <-chan struct{} { return f.changes }
func (f *fakeTeam) Status() (bool, error)    { return true, nil }
func (f *fakeTeam) Decide(ctx context.Context, r remote.Request, verdict, reason string, out func(string, []byte)) (remote.Outcome, error) {
	f.mu.Lock()
	f.decided = append(f.decided, r.Key()+" "+verdict+" "+reason+" "+r.Hash)
	f.mu.Unlock()
	if verdict == "denied" {
		return remote.Outcome{}, errors.New("the request's machine refused this decision: outside what the policy trusts\x1b[2J")
	}
	out("stdout", []byte("line one\x1b[31m\n"))
	<-f.release
	out("stderr", []byte("line two\n"))
	code := 0
	return remote.Outcome{Decision: verdict, Approver: "bob", ExitCode: &code}, nil
}

func (f *fakeTeam) set(reqs ...remote.Request) {
	f.mu.Lock()
	f.reqs = reqs
	f.mu.Unlock()
	select {
	case f.changes <- struct{}{}:
	default:
	}
}

func teamHarness(t *testing.T) (*harness, *fakeTeam, string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	token, _ := NewToken()
	ft := &fakeTeam{changes: make(chan struct{}, 1), release: make(chan struct{})}
	ts := httptest.NewUnstartedServer(nil)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := New(ctx, Config{Addr: ts.Listener.Addr().String(), Token: token, State: st,
		Team:   &Team{Where: "organisation acme", As: "ed25519:KEY", Source: ft},
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(func() {
		close(ft.release)
		ts.Close()
		cancel()
		cctx, c2 := context.WithTimeout(context.Background(), 10*time.Second)
		defer c2()
		srv.Close(cctx)
	})
	return &harness{srv: srv, h: srv.Handler(), st: st, token: token}, ft, ts.URL
}

// The dashboard in team mode: every machine's requests, escaped; an
// approval names the hash shown, and is sent once; its live output and
// outcome come as events; a refusal is reported.
func TestTeamDashboard(t *testing.T) {
	h, ft, base := teamHarness(t)
	c, _, err := dial(t, h, base, base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	next(t, c, EventHello)
	hostile := remote.Request{Org: "acme", Host: "ws-a", Project: "payments", ID: "01abc", Hash: "h1", Kind: "shell",
		Summary: "rm -rf\x1b[8m hidden", Display: "run: rm -rf /\u202e\nin: /src", Agent: "claude\x07", Created: time.Now()}
	cut := remote.Request{Org: "acme", Host: "ws-b", Project: "web", ID: "01def", Hash: "h2", Kind: "write", Summary: "write x",
		Display: "write x:\n...", Truncated: true, Created: time.Now()}
	ft.set(hostile, cut)
	next(t, c, EventTeam)

	do := func(method, path, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, base+path, strings.NewReader(body))
		r.Host = strings.TrimPrefix(base, "http://")
		r.Header.Set("Authorization", "Bearer "+h.token)
		w := httptest.NewRecorder()
		h.h.ServeHTTP(w, r)
		return w
	}
	var v TeamView
	decode(t, do("GET", "/api/team", ""), 200, &v)
	if len(v.Requests) != 2 || v.Where != "organisation acme" || !v.Connected {
		t.Fatalf("team view: %+v", v)
	}
	got := v.Requests[0]
	for _, s := range []string{got.Summary, got.Display, got.Agent} {
		if strings.ContainsAny(s, "\x1b\u202e\x07") {
			t.Errorf("unescaped text reached the page: %q", s)
		}
	}
	if got.Key != "ws-a/payments/01abc" || got.Hash != "h1" {
		t.Errorf("view: %+v", got)
	}
	if w := do("GET", "/", ""); w.Code != 200 || !strings.Contains(w.Body.String(), "team.js") {
		t.Errorf("the team page: %d", w.Code)
	}
	if w := do("GET", "/api/requests", ""); w.Code != 404 && w.Code != 405 {
		t.Errorf("a folder route in team mode: %d", w.Code)
	}

	for _, tc := range []struct{ path, body, code string }{
		{"/api/team/ws-a/payments/01abc/approve", `{}`, "hash_required"},
		{"/api/team/ws-a/payments/01abc/approve", `{"hash":"h0"}`, "changed"},
		{"/api/team/ws-b/web/01def/approve", `{"hash":"h2"}`, "cut"},
		{"/api/team/ws-a/payments/nope/approve", `{"hash":"h1"}`, "not_found"},
		{"/api/team/ws-a/payments/01abc/approve", `{"hash":"h1","extra":1}`, "bad_request"},
	} {
		w := do("POST", tc.path, tc.body)
		if !strings.Contains(w.Body.String(), `"code":"`+tc.code+`"`) {
			t.Errorf("POST %s %s: %d %s", tc.path, tc.body, w.Code, w.Body.String())
		}
	}
	if len(ft.decided) != 0 {
		t.Fatalf("decided without a valid approval: %v", ft.decided)
	}

	decode(t, do("POST", "/api/team/ws-a/payments/01abc/approve", `{"hash":"h1"}`), 202, nil)
	if w := do("POST", "/api/team/ws-a/payments/01abc/approve", `{"hash":"h1"}`); w.Code != 409 {
		t.Errorf("a second approval while the first travels: %d %s", w.Code, w.Body.String())
	}
	out := next(t, c, EventTeamOutput)
	if out.ID != "ws-a/payments/01abc" || out.Stream != "stdout" || !strings.Contains(out.Text, "line one") || strings.Contains(out.Text, "\x1b") {
		t.Errorf("live output event: %+v", out)
	}
	decode(t, do("GET", "/api/team", ""), 200, &v)
	if !v.Requests[0].Deciding {
		t.Errorf("the request decided here is not marked: %+v", v.Requests[0])
	}
	ft.release <- struct{}{}
	oc := next(t, c, EventTeamOutcome)
	if oc.Team == nil || oc.Team.Decision != "approved" || oc.Team.Approver != "bob" || oc.Team.ExitCode == nil {
		t.Errorf("outcome event: %+v", oc.Team)
	}

	decode(t, do("POST", "/api/team/ws-b/web/01def/deny", `{"reason":"too long to read"}`), 202, nil)
	oc = next(t, c, EventTeamOutcome)
	if oc.Team == nil || !strings.Contains(oc.Team.Error, "refused") || strings.Contains(oc.Team.Error, "\x1b") {
		t.Errorf("a refusal: %+v", oc.Team)
	}
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if len(ft.decided) != 2 || ft.decided[0] != "ws-a/payments/01abc approved  h1" || ft.decided[1] != "ws-b/web/01def denied too long to read h2" {
		t.Errorf("decisions sent: %q", ft.decided)
	}
}
