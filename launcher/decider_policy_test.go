package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// deciderBus is a bus on a fresh folder whose accepted policy is yaml.
func deciderBus(t *testing.T, yaml string) *Bus {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := folder.Folder{Root: root}
	for _, d := range f.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Policy(), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := store.Accept(f, st, []byte(yaml)); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	b, err := OpenBus(BusOptions{Folder: f, State: st, Exe: exe, NetWait: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Name rules never match IP literals, loopback, link-local or metadata
// addresses: those escalate (or are denied), whatever the names say.
func TestPolicyDeciderNamesAndAddresses(t *testing.T) {
	b := deciderBus(t, `version: 1
network:
  allow: ["*.example.com", "example.com", "localhost", "*.internal", "10.1.2.3:8080"]
  deny: [{pattern: "evil.example.com", reason: "known bad"}]
`)
	tests := []struct {
		host    string
		port    int
		allow   bool
		reason  string // substring
		pending bool   // it escalated (and nobody answered in time)
	}{
		{"api.example.com", 443, true, "", false},
		{"example.com", 80, true, "", false},
		{"evil.example.com", 443, false, "known bad", false},
		{"10.1.2.3", 8080, true, "", false},
		{"10.1.2.3", 8081, false, "nobody decided", true},
		{"93.184.216.34", 443, false, "nobody decided", true}, // example.com's address: a name rule does not match it
		{"127.0.0.1", 80, false, "nobody decided", true},      // "localhost" does not match loopback: no rule names it, a human is asked
		{"::1", 80, false, "nobody decided", true},
		{"::ffff:127.0.0.1", 80, false, "nobody decided", true},
		{"127.0.0.2", 80, false, "a service on this machine", false},             // the host's other addresses: only a rule opens them
		{"localhost.localdomain", 80, false, "a service on this machine", false}, // a name for loopback: the dial guard would refuse it
		{"169.254.169.254", 80, false, "metadata", false},
		{"metadata.google.internal", 80, false, "metadata", false}, // *.internal does not lift the built-in deny
		{"unlisted.org", 443, false, "nobody decided", true},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			before, _ := b.q.List()
			ok, reason := b.Decider().Decide(context.Background(), tc.host, tc.port)
			if ok != tc.allow || !strings.Contains(reason, tc.reason) {
				t.Errorf("Decide(%s, %d) = %v, %q", tc.host, tc.port, ok, reason)
			}
			after, _ := b.q.List()
			if escalated := len(after) > len(before); escalated != tc.pending {
				t.Errorf("escalated = %v, want %v", escalated, tc.pending)
			}
		})
	}
}

// A pending escalation is withdrawn when its connection gives up.
func TestPolicyDeciderWithdrawsWhenTheClientLeaves(t *testing.T) {
	b := deciderBus(t, "version: 1\n")
	b.decider.wait = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() { ok, _ := b.Decider().Decide(ctx, "unlisted.org", 443); done <- ok }()
	var id string
	for i := 0; i < 500 && id == ""; i++ {
		if reqs, _ := b.q.Pending(); len(reqs) == 1 {
			id = reqs[0].ID
		}
		time.Sleep(10 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("no request")
	}
	cancel()
	if <-done {
		t.Fatal("allowed")
	}
	if res, err := b.q.Result(id); err != nil || res.Decision != queue.Withdrawn {
		t.Errorf("result %+v %v, want withdrawn", res, err)
	}
}

// "Approve always" stores a remembered decision through the approver; the
// decider sees it at its next escalation (here: another run's session,
// which could not join the first request), and lets it through unasked.
func TestPolicyDeciderApproveAlways(t *testing.T) {
	b := deciderBus(t, "version: 1\n")
	b.decider.wait = time.Minute
	ap, err := approver.New(approver.Options{Queue: b.q, Audit: b.audit, Identity: approver.Identity{User: "h@t", Surface: "watch"},
		Memory: approver.NewPolicyMemory(b.f, b.st, nil)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { ok, _ := b.Decider().Decide(context.Background(), "registry.example.org", 443); done <- ok }()
	req := waitPending(t, b.q)
	if _, err := ap.Approve(context.Background(), req.ID, approver.ApproveOptions{ShownHash: req.Hash, Always: true}); err != nil {
		t.Fatal(err)
	}
	if !<-done {
		t.Fatal("the approved destination was refused")
	}
	b.decider.session = "another-run"
	if ok, reason := b.Decider().Decide(context.Background(), "registry.example.org", 443); !ok || !strings.Contains(reason, "approved always by h@t") {
		t.Errorf("after approve always: %v %q", ok, reason)
	}
	if reqs, _ := b.q.Pending(); len(reqs) != 0 {
		t.Errorf("%d requests after approve always", len(reqs))
	}
}

func waitPending(t *testing.T, q *queue.Queue) *queue.Request {
	t.Helper()
	for i := 0; i < 500; i++ {
		if reqs, _ := q.Pending(); len(reqs) == 1 {
			return reqs[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no pending request")
	return nil
}
