package approver

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// withDefaultPolicy writes and accepts the default policy for tf, with
// the tests' request (tee -a FILE, which the default policy allows inside
// the project) made a question for a human.
func withDefaultPolicy(t *testing.T, tf *testFolder) *PolicyMemory {
	t.Helper()
	data := []byte(strings.Replace(string(policy.DefaultYAML()), "\n  escalate:\n",
		"\n  escalate:\n    - {pattern: \"tee -a *\", reason: \"the tests' request\"}\n", 1))
	if err := os.WriteFile(tf.f.Policy(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := store.Accept(tf.f, tf.st, data); err != nil {
		t.Fatal(err)
	}
	return NewPolicyMemory(tf.f, tf.st, nil)
}

func TestApproveAlwaysRemembersAndDecidesTheNextOne(t *testing.T) {
	tf := newTestFolder(t)
	mem := withDefaultPolicy(t, tf)
	a := tf.approver(t, SurfaceWatch, mem)
	first := tf.appendID(t, "one")
	proposed, err := a.Propose(first)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Remembered(first); ok {
		t.Fatal("remembered before anything was remembered")
	}
	res, err := a.Approve(context.Background(), first.ID, ApproveOptions{Always: true})
	if err != nil || res.Always != proposed {
		t.Fatalf("approve always: %+v, %v (proposed %q)", res, err, proposed)
	}
	t.Logf("proposed and remembered %q", proposed)

	same := tf.appendID(t, "one") // the same command again, another session
	m, ok := a.Remembered(same)
	if !ok || !m.Allow || m.Pattern != proposed {
		t.Fatalf("remembered = %+v, %v", m, ok)
	}
	res, decided, err := a.Decide(context.Background(), same, ApproveOptions{})
	if err != nil || !decided || res.Decision != queue.Approved || res.Approver.Surface != SurfaceRemembered {
		t.Fatalf("decide: %+v, %v, %v", res, decided, err)
	}
	other := tf.submit(t, &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{
		Argv: []string{"tee", "-a", "elsewhere.txt"}, Stdin: []byte("x\n")}})
	if _, decided, _ := a.Decide(context.Background(), other, ApproveOptions{}); decided {
		t.Error("a different command was decided by the remembered pattern")
	}
	if got := tf.lines(t, "executed.txt"); len(got) != 2 {
		t.Errorf("executed %v", got)
	}
	recs := tf.verifyAudit(t)
	if got := events(recs, same.ID); len(got) != 2 || got[0] != "request.approved:approved" {
		t.Errorf("audit of the remembered approval = %v", got)
	}
}

func TestRememberedDenyDenies(t *testing.T) {
	tf := newTestFolder(t)
	withDefaultPolicy(t, tf)
	req := tf.appendID(t, "x")
	err := store.Remember(tf.f, tf.st, policy.Remembered{Trigger: policy.Shell, Tier: policy.Deny, Pattern: "tee **"})
	if err != nil {
		t.Fatal(err)
	}
	a := tf.approver(t, SurfaceWatch, NewPolicyMemory(tf.f, tf.st, nil))
	res, decided, err := a.Decide(context.Background(), req, ApproveOptions{})
	if err != nil || !decided || res.Decision != queue.Denied || res.Approver.Surface != SurfaceRemembered {
		t.Fatalf("decide: %+v, %v, %v", res, decided, err)
	}
	if fileExists(tf, "executed.txt") {
		t.Error("a remembered deny ran the command")
	}
}

func TestRememberRefusesAPatternThatDoesNotCover(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, withDefaultPolicy(t, tf))
	req := tf.appendID(t, "y")
	_, err := a.Approve(context.Background(), req.ID, ApproveOptions{Always: true, Pattern: "git status"})
	if !errors.Is(err, ErrNoPattern) {
		t.Fatalf("approve with a pattern that does not cover it: %v", err)
	}
	if fileExists(tf, "executed.txt") {
		t.Error("ran although the approval was refused")
	}
	if _, state, _ := tf.q.Load(req.ID); state != queue.StatePending {
		t.Errorf("state = %s, want pending (for another decision)", state)
	}
	if _, ok := a.Remembered(tf.appendID(t, "y")); ok {
		t.Error("something was remembered")
	}
}

func TestApproveAlwaysWithoutMemory(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	req := tf.appendID(t, "z")
	if _, err := a.Approve(context.Background(), req.ID, ApproveOptions{Always: true}); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("approve always without memory: %v", err)
	}
	if fileExists(tf, "executed.txt") {
		t.Error("ran")
	}
}
