package watch

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/remote"
)

// fakeSource is team mode without NATS.
type fakeSource struct {
	mu      sync.Mutex
	reqs    []remote.Request
	changes chan struct{}
	decided []string
	release chan struct{}
}

func (f *fakeSource) Pending() []remote.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]remote.Request(nil), f.reqs...)
}
func (f *fakeSource) Changes() <-chan struct{} { return f.changes }
func (f *fakeSource) Status() (bool, error)    { return true, nil }
func (f *fakeSource) Decide(_ context.Context, r remote.Request, verdict, reason string, out func(string, []byte)) (remote.Outcome, error) {
	f.mu.Lock()
	f.decided = append(f.decided, r.ID+" "+verdict+" "+reason+" "+r.Hash)
	f.reqs = slicesDelete(f.reqs, r.Key())
	f.mu.Unlock()
	if r.ID == "slow" {
		<-f.release
	}
	if r.ID == "refused" {
		return remote.Outcome{}, errors.New("the request's machine refused this decision: stale\x1b[2J")
	}
	out("stdout", []byte("ran \x1b[31mred\n"))
	code := 0
	return remote.Outcome{Decision: verdict, Approver: "bob", ExitCode: &code}, nil
}

func slicesDelete(reqs []remote.Request, key string) []remote.Request {
	var out []remote.Request
	for _, r := range reqs {
		if r.Key() != key {
			out = append(out, r)
		}
	}
	return out
}

// lockedBuffer is the screen, written by the session while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func waitScreen(t *testing.T, screen *lockedBuffer, want string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !strings.Contains(screen.String(), want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the screen never showed %q:\n%s", want, screen.String())
		}
	}
}

// watch --nats in line mode: requests shown escaped under their machine,
// a cut one never approved from here, a deny with its reason, a refusal
// shown, and the output of an approval.
func TestRunRemote(t *testing.T) {
	now := time.Now()
	src := &fakeSource{changes: make(chan struct{}, 1), reqs: []remote.Request{
		{Org: "acme", Host: "ws-a", Project: "pay", ID: "cut", Hash: "h1", Kind: "write", Summary: "write x", Display: "write x:\n…", Truncated: true, Created: now},
		{Org: "acme", Host: "ws-a", Project: "pay", ID: "evil", Hash: "h2", Kind: "shell", Summary: "echo hi",
			Display: "run: echo hi\x1b[8m; rm -rf ~\u202e", Agent: "claude\x07", Reasons: []string{"escalate: \x1b[2J"}, Created: now},
		{Org: "acme", Host: "ws-b", Project: "web", ID: "refused", Hash: "h3", Kind: "shell", Summary: "ls", Display: "run: ls", Created: now},
	}}
	in, typed := io.Pipe()
	screen := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- RunRemote(context.Background(), RemoteConfig{Where: "organisation acme", As: "ed25519:K", Source: src, In: in, Out: screen, Plain: true})
	}()
	waitScreen(t, screen, "cut ws-a/pay: [a] approve")
	typed.Write([]byte("a\n"))
	waitScreen(t, screen, "not approved: its display was cut")
	typed.Write([]byte("s\n"))
	waitScreen(t, screen, "evil ws-a/pay: [a] approve")
	typed.Write([]byte("d not on Fridays\n"))
	waitScreen(t, screen, "denied by bob")
	waitScreen(t, screen, "══ ws-b/web · 1 pending ══")
	typed.Write([]byte("a\n"))
	waitScreen(t, screen, "refused this decision: stale")
	waitScreen(t, screen, "waiting for requests (1 skipped")
	typed.Write([]byte("q\n"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := screen.String()
	if strings.ContainsAny(s, "\x1b\u202e") || strings.Contains(s, "claude\x07") { // the bell announcing arrivals is watch's own
		t.Errorf("raw control characters reached the screen:\n%q", s)
	}
	for _, want := range []string{`claude\x07`, "══ ws-a/pay · 2 pending ══", `\x1b[8m`, "hash     h2", "policy   escalate:", "(said by the request's writer, unverified)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if strings.Join(src.decided, "|") != "evil denied not on Fridays h2|refused approved  h3" {
		t.Errorf("decisions: %q", src.decided)
	}
}

// A machine that is slow or offline does not hold the approver: [b]
// stops waiting, the next request comes, and the first one's outcome is
// announced when it arrives; lines a script typed meanwhile are kept for
// what comes next.
func TestRunRemoteStopsWaiting(t *testing.T) {
	now := time.Now()
	src := &fakeSource{changes: make(chan struct{}, 1), release: make(chan struct{}), reqs: []remote.Request{
		{Org: "acme", Host: "ws-a", Project: "pay", ID: "slow", Hash: "h1", Kind: "shell", Summary: "make", Display: "run: make", Created: now},
		{Org: "acme", Host: "ws-a", Project: "pay", ID: "next", Hash: "h2", Kind: "shell", Summary: "ls", Display: "run: ls", Created: now},
		{Org: "acme", Host: "ws-a", Project: "pay", ID: "third", Hash: "h3", Kind: "shell", Summary: "pwd", Display: "run: pwd", Created: now},
	}}
	in, typed := io.Pipe()
	screen := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- RunRemote(context.Background(), RemoteConfig{Where: "organisation acme", As: "ed25519:K", Source: src, In: in, Out: screen, Plain: true})
	}()
	waitScreen(t, screen, "slow ws-a/pay: [a] approve")
	typed.Write([]byte("a\n"))
	waitScreen(t, screen, "[b] stop waiting")
	typed.Write([]byte("b\n"))
	waitScreen(t, screen, "no longer waiting for slow")
	waitScreen(t, screen, "next ws-a/pay: [a] approve")
	typed.Write([]byte("a\na\n")) // the second line is for the third request
	waitScreen(t, screen, "✓ next approved by bob")
	waitScreen(t, screen, "✓ third approved by bob")
	close(src.release)
	waitScreen(t, screen, "✓ slow approved by bob")
	typed.Write([]byte("q\n"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
