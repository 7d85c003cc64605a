package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// serveVar makes the test binary serve the folder it names on stdin and
// stdout, as `sandbox mcp DIR` does: the stdio tests start it.
const serveVar = "SANDBOX_MCPSERVER_TEST_SERVE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(serveVar); dir != "" {
		os.Exit(serveForTest(dir))
	}
	os.Exit(m.Run())
}

func serveForTest(dir string) int {
	f, err := folder.New(dir)
	if err == nil {
		var s *Server
		s, err = New(Options{Folder: f, ProgressEvery: 50 * time.Millisecond,
			Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if err == nil {
			err = s.Serve(context.Background(), os.Stdin, os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// fixture is a project folder with the default policy accepted, per-user
// state in a temp dir, and a server on it.
type fixture struct {
	t   testing.TB
	f   folder.Folder
	st  *userstate.State
	q   *queue.Queue
	srv *Server
}

func newFixture(t *testing.T, env ...string) *fixture {
	return setupFixture(t, env...)
}

// benchFixture is newFixture for benchmarks.
func benchFixture(b *testing.B) *fixture { return setupFixture(b) }

func osArgs0() string { return os.Args[0] }

func setupFixture(t testing.TB, env ...string) *fixture {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := folder.Folder{Root: root}
	for _, d := range f.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.Policy(), policy.DefaultYAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Accept(f, st, policy.DefaultYAML()); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(f, queue.WithKey(st.Key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	srv, err := New(Options{Folder: f, ProgressEvery: 20 * time.Millisecond, Environ: append(os.Environ(), env...)})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, f: f, st: st, q: q, srv: srv}
}

// client is an initialised in-process client of the fixture's server;
// notifications it receives are collected.
type testClient struct {
	*client.Client
	mu sync.Mutex
	// notes holds every notification received, in order.
	notes []mcp.JSONRPCNotification
}

func (fx *fixture) client() *testClient {
	fx.t.Helper()
	return initClient(fx.t, fx.pipeClient())
}

// pipeClient connects an mcp-go client to the fixture's server through
// pipes, in this process; closing the client ends the server's input.
func (fx *fixture) pipeClient() *client.Client {
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	done := make(chan error, 1)
	go func() {
		done <- fx.srv.Serve(context.Background(), sr, sw)
		sw.Close()
	}()
	fx.t.Cleanup(func() {
		cw.Close()
		if err := <-done; err != nil {
			fx.t.Errorf("Serve: %v", err)
		}
	})
	return client.NewClient(transport.NewIO(cr, cw, nil))
}

// initClient starts (again: for a stdio client that installs the
// notification handler) and initialises c.
func initClient(t testing.TB, c *client.Client) *testClient {
	t.Helper()
	tc := &testClient{Client: c}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		tc.mu.Lock()
		tc.notes = append(tc.notes, n)
		tc.mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "sandbox-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return tc
}

func (tc *testClient) progress() []mcp.JSONRPCNotification {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var out []mcp.JSONRPCNotification
	for _, n := range tc.notes {
		if n.Method == string(mcp.MethodNotificationProgress) {
			out = append(out, n)
		}
	}
	return out
}

// call calls a tool; token, when not nil, asks for progress.
func (tc *testClient) call(t *testing.T, name string, args map[string]any, token mcp.ProgressToken) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	res, err := tc.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// outcome decodes a result's structuredContent.
func outcome(t *testing.T, res *mcp.CallToolResult) Outcome {
	t.Helper()
	var o Outcome
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || json.Unmarshal(b, &o) != nil {
		t.Fatalf("structuredContent %v: %v", res.StructuredContent, err)
	}
	return o
}

// text joins a result's text blocks.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// approver answers pending requests like a scripted human: decide
// returns "" to approve, else the reason to deny.
func (fx *fixture) approver(decide func(*queue.Request) string) (seen func() []*queue.Request) {
	fx.t.Helper()
	lg, err := audit.Open(fx.f, fx.st)
	if err != nil {
		fx.t.Fatal(err)
	}
	a, err := approver.New(approver.Options{Queue: fx.q, Audit: lg,
		Identity: approver.Identity{User: "tester@test", Surface: approver.SurfaceCLI}, Timeout: time.Minute})
	if err != nil {
		fx.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var reqs []*queue.Request
	done := make(chan struct{})
	go func() {
		defer close(done)
		answered := map[string]bool{}
		for ctx.Err() == nil {
			pending, _ := fx.q.Pending()
			for _, r := range pending {
				if answered[r.ID] {
					continue
				}
				answered[r.ID] = true
				mu.Lock()
				reqs = append(reqs, r)
				mu.Unlock()
				if why := decide(r); why == "" {
					a.Approve(ctx, r.ID, approver.ApproveOptions{})
				} else {
					a.Deny(ctx, r.ID, why)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	fx.t.Cleanup(func() { cancel(); <-done; lg.Close() })
	return func() []*queue.Request {
		mu.Lock()
		defer mu.Unlock()
		return append([]*queue.Request(nil), reqs...)
	}
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}
