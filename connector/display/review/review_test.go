package review

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

func part(t policy.Trigger, subject string, tier policy.Tier) policy.Part {
	return policy.Part{Trigger: t, Subject: subject, Decision: tier, Reason: "because"}
}

func TestClassify(t *testing.T) {
	root := "/home/u/proj"
	cases := []struct {
		p    policy.Part
		want []Risk
	}{
		{part(policy.Shell, "sudo bash", policy.Escalate), []Risk{RunsProgram, Privilege}},
		{part(policy.Shell, "bash", policy.Escalate), []Risk{RunsProgram}},
		{part(policy.Shell, "curl -fsSL https://x.example/i.sh", policy.Escalate), []Risk{Network}},
		{part(policy.Shell, "git push origin main", policy.Escalate), []Risk{RunsProgram, Network}},
		{part(policy.Shell, "npm install", policy.Escalate), []Risk{RunsProgram, Network}},
		{part(policy.Shell, "chmod u+s ./x", policy.Escalate), []Risk{Privilege}},
		{part(policy.Shell, "chmod 4755 ./x", policy.Escalate), []Risk{Privilege}},
		{part(policy.Shell, "doas id", policy.Escalate), []Risk{Privilege}},
		{part(policy.Shell, "'./build.sh' --fast", policy.Escalate), []Risk{RunsProgram}},
		{part(policy.Network, "x.example:443", policy.Escalate), []Risk{Network}},
		{part(policy.Write, "/home/u/.cache/x", policy.Escalate), []Risk{WritesOutside}},
		{part(policy.Write, "/home/u/proj/.git/hooks/pre-push", policy.Escalate), []Risk{RunsProgram}},
		{part(policy.Write, "/home/u/proj/notes.txt", policy.Escalate), []Risk{Other}},
		{part(policy.Read, "/home/u/.ssh/id_rsa", policy.Escalate), []Risk{ReadsSecret}},
		{part(policy.Read, "/home/u/proj/.env", policy.Escalate), []Risk{ReadsSecret}},
		{part(policy.Read, "/home/u/proj", policy.Escalate), []Risk{Other}},
		{part(policy.Shell, "set -e", policy.Escalate), []Risk{Other}},
		{part(policy.Shell, "sudo bash", policy.Allow), []Risk{Allowed}},
	}
	for _, tc := range cases {
		if got := Classify(tc.p, root); !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: %v, want %v", tc.p.Trigger, tc.p.Subject, got, tc.want)
		}
	}
}

// The hits that need a human come first, riskiest first, whatever the
// script's order; identical parts are grouped with a count; nothing is
// capped; the allowed ones come last.
func TestRankRiskiestFirstNeverCapped(t *testing.T) {
	parts := []policy.Part{part(policy.Shell, "set -e", policy.Escalate), part(policy.Shell, "ls", policy.Allow)}
	for range 3 {
		parts = append(parts, part(policy.Shell, "echo same", policy.Escalate))
	}
	for i := range 500 {
		parts = append(parts, part(policy.Shell, "touch f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)), policy.Escalate))
	}
	parts = append(parts, part(policy.Shell, "rm -rf build", policy.Escalate), part(policy.Read, "/home/u/.aws/credentials", policy.Escalate),
		part(policy.Shell, "curl https://x.example", policy.Escalate), part(policy.Shell, "sudo bash", policy.Deny), part(policy.Shell, "bash", policy.Escalate))
	rv := New(&queue.Request{}, Facts{Decision: policy.Decision{Decision: policy.Deny, Parts: parts}, Recomputed: true, Root: "/home/u/proj"})
	var order []string
	for _, h := range rv.Hits[:6] {
		order = append(order, h.Subject)
	}
	want := []string{"sudo bash", "bash", "curl https://x.example", "/home/u/.aws/credentials", "rm -rf build", "set -e"}
	if !slices.Equal(order, want) {
		t.Fatalf("order %q, want %q", order, want)
	}
	if n := len(rv.Hits); n != 2+1+500+5 {
		t.Fatalf("%d hits", n)
	}
	same := rv.Hits[slices.IndexFunc(rv.Hits, func(h Hit) bool { return h.Subject == "echo same" })]
	if same.Count != 3 || !strings.HasSuffix(same.Line(), "(×3)") {
		t.Fatalf("grouped %+v", same)
	}
	if last := rv.Hits[len(rv.Hits)-1]; last.Tier != policy.Allow || len(rv.Allowed()) != 1 {
		t.Fatalf("allowed hits not last: %+v", last)
	}
	if h := rv.Headline(2); !strings.HasPrefix(h, "deny runs a program: sudo bash · escalate runs a program: bash · +") {
		t.Fatalf("headline %q", h)
	}
}

// Without the policy, the request's own reasons are shown as its claim.
func TestUnrecomputedReviewSaysSo(t *testing.T) {
	rv := New(&queue.Request{PolicyReasons: []string{"trust me \x1b[2J"}}, Facts{})
	if rv.Recomputed || len(rv.Hits) != 1 || !strings.Contains(rv.Hits[0].Reason, "requester's own words") || strings.Contains(rv.Hits[0].Subject, "\x1b") {
		t.Fatalf("%+v", rv)
	}
}

func TestStale(t *testing.T) {
	f := folder.Folder{Root: t.TempDir()}
	os.MkdirAll(f.Waiters(), 0o755)
	if Stale(f, "01abc") != "" {
		t.Fatal("stale with nobody gone")
	}
	os.WriteFile(filepath.Join(f.Waiters(), "01abc.gone"), nil, 0o644)
	if Stale(f, "01abc") == "" {
		t.Fatal("not stale after the creator left with no joiner")
	}
	// A joiner's registration nobody holds (it died) does not count.
	os.WriteFile(filepath.Join(f.Waiters(), "01abc.1234.lock"), nil, 0o644)
	if Stale(f, "01abc") == "" {
		t.Fatal("a dead joiner counted as waiting")
	}
}

// A hook that stops waiting (WaitKeep) leaves its request pending for a
// retry to join; the request is then stale until someone waits again.
func TestStaleAfterTheHookStopsWaiting(t *testing.T) {
	f := folder.Folder{Root: t.TempDir()}
	if err := os.MkdirAll(f.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: "npm install"},
		Cwd: f.Root, Source: queue.SourceClaudeHook, Session: "s1"}
	id, _, err := q.Submit(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if Stale(f, id) != "" {
		t.Fatal("stale while its creator waits")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := q.WaitKeep(ctx, id); err == nil {
		t.Fatal("WaitKeep returned without a result or an error")
	}
	if Stale(f, id) == "" {
		t.Fatal("not stale after the hook stopped waiting")
	}
	// The same call asked again joins it: someone waits again.
	q2, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	req2 := *req
	req2.ID, req2.Hash = "", ""
	id2, joined, err := q2.Submit(t.Context(), &req2)
	if err != nil || !joined || id2 != id {
		t.Fatalf("retry: %s joined %v: %v", id2, joined, err)
	}
	if Stale(f, id) != "" {
		t.Fatal("stale while a joiner waits")
	}
}
