//go:build linux

package launcher

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// helloServer answers "hello NAME" on 127.0.0.2, outside the jail's
// NO_PROXY, so that clients in the jail go through the proxy.
func helloServer(t *testing.T, name string) (string, int) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		testenv.Skip(t, "no 127.0.0.2: "+err.Error())
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(
		func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, "hello %s", name) })}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, ln.Addr().(*net.TCPAddr).Port
}

// scriptedHuman approves network requests to port allow and denies the
// rest, until the test ends; it returns the requests it saw.
func scriptedHuman(t *testing.T, b *Bus, st *userstate.State, allow int) func() []*queue.Request {
	t.Helper()
	lg, err := audit.Open(b.f, st)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := approver.New(approver.Options{Queue: b.q, Audit: lg, Identity: approver.Identity{User: "human@test", Surface: "watch"}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []*queue.Request
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		answered := map[string]bool{}
		for ctx.Err() == nil {
			reqs, _ := b.q.Pending()
			for _, r := range reqs {
				if answered[r.ID] {
					continue
				}
				answered[r.ID] = true
				mu.Lock()
				seen = append(seen, r)
				mu.Unlock()
				if r.Kind == queue.KindNetwork && r.Network.Port == allow {
					ap.Approve(ctx, r.ID, approver.ApproveOptions{ShownHash: r.Hash})
				} else {
					ap.Deny(ctx, r.ID, "not this one")
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; lg.Close() })
	return func() []*queue.Request {
		mu.Lock()
		defer mu.Unlock()
		return append([]*queue.Request(nil), seen...)
	}
}

// In both jail modes, a destination the policy does not list escalates
// through the run's bus: approved it passes, denied it gets a 403 with
// the reason.
func TestJailProxyEscalates(t *testing.T) {
	e := newJailEnv(t)
	curl := testenv.RequireCommand(t, "curl")
	urlA, portA := helloServer(t, "A")
	urlB, _ := helloServer(t, "B")
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			st, err := userstate.OpenDir(filepath.Join(t.TempDir(), "state"), true)
			if err != nil {
				t.Fatal(err)
			}
			// 127.0.0.2 is on this machine: only a rule that names it
			// lets the proxy ask a human about it
			yaml := "version: 1\nnetwork:\n  escalate: [\"127.0.0.2\"]\n"
			mustWrite(t, e.project.Policy(), yaml)
			if err := store.Accept(e.project, st, []byte(yaml)); err != nil {
				t.Fatal(err)
			}
			exe, _ := os.Executable()
			b, err := OpenBus(BusOptions{Folder: e.project, State: st, Exe: exe})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			seen := scriptedHuman(t, b, st, portA)
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan struct{})
			go func() { defer close(served); b.Serve(ctx) }()
			defer func() { cancel(); <-served }()
			script := fmt.Sprintf("%s -s -w ' code=%%{http_code}\\n' %s/; %s -s -w ' code=%%{http_code}\\n' %s/", curl, urlA, curl, urlB)
			o := e.options(m, "/bin/sh", "-c", script)
			b.Apply(&o)
			out, res := runJailed(t, o)
			if res.Code != 0 || !strings.Contains(out, "hello A code=200") || !strings.Contains(out, "not this one") ||
				!strings.Contains(out, "code=403") || strings.Contains(out, "hello B") {
				t.Fatalf("exit %d:\n%s", res.Code, out)
			}
			for _, r := range seen() {
				if r.Kind != queue.KindNetwork || r.Source != queue.SourceProxy || r.Session != b.Session() {
					t.Errorf("request %+v", r)
				}
			}
		})
	}
}
