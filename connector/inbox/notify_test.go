package inbox

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

func pending(ids ...string) []*queue.Request {
	var out []*queue.Request
	for _, id := range ids {
		r := shell("/w", "deploy --token=s3cr3t-value-that-is-long "+strings.Repeat("x", 200))
		r.ID = id
		out = append(out, r)
	}
	return out
}

// A webhook gets one POST when an agent starts waiting: agent, branch,
// request id and a short summary, never output; MAIN never notifies; a
// second request of an agent already waiting does not notify again.
func TestNotifierWebhook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []Notice
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s", r.Method, r.Header.Get("Content-Type"))
		}
		var n Notice
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &n); err != nil {
			t.Errorf("body %q: %v", body, err)
		}
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	}))
	defer srv.Close()
	n := &Notifier{Webhook: srv.URL}
	alice := Tag{Agent: "alice", Branch: "sandbox/alice"}
	if !n.Update(alice, pending("r1")) {
		t.Error("alice started waiting: no notification")
	}
	if n.Update(alice, pending("r1", "r2")) {
		t.Error("alice was waiting already")
	}
	if n.Update(Tag{Agent: MainName}, pending("r3")) {
		t.Error("MAIN notified")
	}
	n.Update(alice, nil)
	n.Update(alice, pending("r4"))
	n.Wait()
	mu.Lock()
	defer mu.Unlock()
	slices.SortFunc(got, func(a, b Notice) int { return strings.Compare(a.Request, b.Request) })
	if len(got) != 2 || got[0].Agent != "alice" || got[0].Branch != "sandbox/alice" || got[0].Request != "r1" ||
		got[0].Event != "agent.waiting" || got[0].Pending != 1 || got[1].Request != "r4" {
		t.Fatalf("webhook got %+v", got)
	}
	if got[0].Summary != "shell deploy" {
		t.Errorf("summary %q: the arguments (a token) must not reach a webhook", got[0].Summary)
	}
}

// A webhook that fails or hangs is logged, never fatal, never retried.
func TestNotifierWebhookFailure(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer srv.Close()
	var log bytes.Buffer
	var lmu sync.Mutex
	n := &Notifier{Webhook: srv.URL, Log: slog.New(slog.NewTextHandler(lockedWriter{&lmu, &log}, nil))}
	n.Update(Tag{Agent: "bob"}, pending("r1"))
	n.Wait()
	bad := &Notifier{Webhook: "file:///etc/passwd", Log: n.Log}
	bad.Update(Tag{Agent: "bob"}, pending("r1"))
	bad.Wait()
	lmu.Lock()
	defer lmu.Unlock()
	if calls != 1 || !strings.Contains(log.String(), "500") || !strings.Contains(log.String(), "not an http(s) URL") {
		t.Fatalf("calls %d, log %s", calls, log.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// notify-send is run without a shell, every text one argument after
// "--": a summary full of shell syntax reaches it as written.
func TestNotifierDesktop(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + args + "\n"
	if err := os.WriteFile(filepath.Join(dir, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	n := &Notifier{Desktop: true}
	content := "x"
	r := &queue.Request{ID: "r9", Kind: queue.KindWrite, Cwd: "/w",
		Write: &queue.WritePayload{Path: "/w/$(touch pwned);`touch pwned2`", Content: &content}}
	n.Update(Tag{Agent: "carol"}, []*queue.Request{r})
	n.Wait()
	data, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "--app-name=sandbox" || lines[1] != "--" ||
		lines[2] != "sandbox: agent carol is waiting" || lines[3] != "r9: write /w/$(touch pwned);`touch pwned2` (1 pending)" {
		t.Fatalf("notify-send got %q", lines)
	}
	if _, err := os.Stat("pwned"); err == nil {
		t.Fatal("the summary ran in a shell")
	}
}
