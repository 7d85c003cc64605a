package serve

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// testAddr is the bound address handler tests pretend to listen on.
const testAddr = "127.0.0.1:7357"

// project is one test folder with its queue, audit log and approver.
type project struct {
	f  folder.Folder
	q  *queue.Queue
	lg *audit.Log
	ap *approver.Approver
}

func newProjectWith(t testing.TB, st *userstate.State, mem approver.Memory) *project {
	t.Helper()
	f := testenv.Folder(t, t.TempDir())
	q, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := audit.Open(f, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close(); q.Close() })
	ap, err := approver.New(approver.Options{Queue: q, Audit: lg, Timeout: time.Minute, Memory: mem,
		Identity: approver.Identity{User: "tester@test", Surface: approver.SurfaceServe}})
	if err != nil {
		t.Fatal(err)
	}
	return &project{f: f, q: q, lg: lg, ap: ap}
}

// submit queues a bash script and returns the request as submitted.
func (p *project) submit(t testing.TB, script string) *queue.Request {
	t.Helper()
	req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script},
		Cwd: p.f.Root, Source: queue.SourceCLI, Agent: "claude", Session: "s-" + queue.NewID(),
		Justification: "testing", PolicyReasons: []string{"no rule allows this"}}
	if _, _, err := p.q.Submit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return req
}

// harness is a server over one or more projects.
type harness struct {
	srv      *Server
	h        http.Handler
	projects []*project
	st       *userstate.State
	token    string
	policies *fakePolicies
}

func newHarness(t testing.TB, n int) *harness {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	return newHarnessAt(t, n, testAddr)
}

func newHarnessAt(t testing.TB, n int, addr string) *harness {
	t.Helper()
	return newHarnessMem(t, n, addr, nil)
}

func newHarnessMem(t testing.TB, n int, addr string, mem approver.Memory) *harness {
	t.Helper()
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{st: st, token: token, policies: newFakePolicies()}
	cfg := Config{Addr: addr, Token: token, State: st, Policies: h.policies,
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	for range n {
		p := newProjectWith(t, st, mem)
		h.projects = append(h.projects, p)
		cfg.Folders = append(cfg.Folders, Folder{Approver: p.ap, Audit: p.lg})
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.srv, err = New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cctx, c2 := context.WithTimeout(context.Background(), 30*time.Second)
		defer c2()
		if err := h.srv.Close(cctx); err != nil {
			t.Error(err)
		}
	})
	h.h = h.srv.Handler()
	return h
}

// do sends a request with the token (unless noAuth) and returns the
// recorded response.
func (h *harness) do(t testing.TB, method, path, body string, mods ...func(*http.Request)) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, "http://"+testAddr+path, rd)
	r.Header.Set("Authorization", "Bearer "+h.token)
	for _, m := range mods {
		m(r)
	}
	w := httptest.NewRecorder()
	h.h.ServeHTTP(w, r)
	return w
}

func noAuth(r *http.Request) { r.Header.Del("Authorization") }

func withHeader(k, v string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(k, v) }
}

func withHost(host string) func(*http.Request) {
	return func(r *http.Request) { r.Host = host }
}

// decode reads a JSON response into v, failing on a status other than want.
func decode(t testing.TB, w *httptest.ResponseRecorder, want int, v any) {
	t.Helper()
	if w.Code != want {
		t.Fatalf("status %d, want %d: %s", w.Code, want, w.Body.String())
	}
	if v != nil {
		if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
			t.Fatalf("decode %q: %v", w.Body.String(), err)
		}
	}
}

// pending lists the pending requests, waiting (bounded) until there are n.
func (h *harness) pending(t testing.TB, n int) []RequestView {
	t.Helper()
	var list struct{ Requests []RequestView }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// a fresh value each time: decoding into the last answer's slice
		// keeps, in each reused element, the fields this answer omits
		// (a MAIN request once showed the agent's branch it replaced)
		list.Requests = nil
		decode(t, h.do(t, "GET", "/api/requests?state=pending", ""), 200, &list)
		if len(list.Requests) == n || time.Now().After(deadline) {
			break
		}
	}
	if len(list.Requests) != n {
		t.Fatalf("%d pending requests, want %d", len(list.Requests), n)
	}
	return list.Requests
}

// fakePolicies keeps accepted policies in memory.
type fakePolicies struct {
	mu       sync.Mutex
	accepted map[string][]byte
}

func newFakePolicies() *fakePolicies { return &fakePolicies{accepted: map[string][]byte{}} }

func (p *fakePolicies) Pending(f folder.Folder) ([]byte, []byte, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur, err := os.ReadFile(f.Policy())
	if err != nil {
		cur = nil
	}
	acc := p.accepted[f.Root]
	return cur, acc, cur == nil || string(cur) != string(acc), nil
}

func (p *fakePolicies) Accept(f folder.Folder, data []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.accepted[f.Root] = data
	return nil
}

func (p *fakePolicies) Remembered(folder.Folder) ([]RememberedView, []string) {
	return []RememberedView{{ID: "abc123", Trigger: "shell", Tier: "allow", Pattern: "npm install **", By: "alice\x1b[31m"}}, nil
}

func (p *fakePolicies) Diff(a, b []byte) string {
	return "--- accepted\n+++ current\n-" + string(a) + "+" + string(b)
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
