package approver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The audit directory cannot be written: the approval is refused with a
// clear message, nothing runs, and the request stays pending.
func TestApproveRefusedWhenTheAuditCannotBeWritten(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	first := tf.script(t, "true")
	if _, err := a.Approve(context.Background(), first.ID, ApproveOptions{}); err != nil {
		t.Fatal(err) // the log now exists
	}
	b := tf.approver(t, SurfaceCLI, nil) // opened before: its appends fail
	dir, err := audit.Dir(tf.f, tf.st)
	if err != nil {
		t.Fatal(err)
	}
	testenv.MakeReadOnly(t, dir)
	if _, err := audit.Open(tf.f, tf.st); err == nil || !errors.Is(err, audit.ErrAppend) {
		t.Errorf("opening a read-only audit log: %v, want ErrAppend", err)
	}
	req := tf.script(t, "echo ran >> ran.txt")
	_, err = b.Approve(context.Background(), req.ID, ApproveOptions{})
	if !errors.Is(err, ErrAuditRefused) {
		t.Fatalf("approve: %v, want ErrAuditRefused", err)
	}
	if !strings.Contains(err.Error(), "audit") || !strings.Contains(err.Error(), "refused") {
		t.Errorf("message %q does not say why", err)
	}
	if fileExists(tf, "ran.txt") {
		t.Error("the request ran although its approval could not be audited")
	}
	if _, state, _ := tf.q.Load(req.ID); state != queue.StatePending {
		t.Errorf("state after refusal = %s, want pending", state)
	}
}

// The request file is replaced after the claim: what runs is what was
// read at the claim.
func TestChangedAfterClaimRunsWhatWasClaimed(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	req := tf.script(t, "echo shown >> ran.txt")
	a.afterClaim = func(c *queue.Claim) {
		evil := *c.Request
		evil.Shell = &queue.ShellPayload{Shell: "bash", Script: "echo evil >> ran.txt"}
		evil.Hash = evil.ComputeHash()
		data, _ := json.Marshal(&evil)
		path := filepath.Join(tf.f.Claimed(), c.ID()+".json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Approve(context.Background(), req.ID, ApproveOptions{ShownHash: req.Hash})
	if err != nil {
		t.Fatal(err)
	}
	if got := tf.lines(t, "ran.txt"); len(got) != 1 || got[0] != "shown" || res.RequestHash != req.Hash {
		t.Fatalf("ran %v (hash %s)", got, res.RequestHash)
	}
}

// The pending file is replaced between showing it and approving it: the
// approval refuses it and nothing runs.
func TestChangedAfterShownIsRefused(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceWatch, nil)
	req := tf.script(t, "echo shown >> ran.txt")
	evil := *req
	evil.Shell = &queue.ShellPayload{Shell: "bash", Script: "echo evil >> ran.txt"}
	evil.Hash = evil.ComputeHash()
	data, _ := json.Marshal(&evil)
	os.WriteFile(filepath.Join(tf.f.Pending(), req.ID+".json"), data, 0o644)
	if _, err := a.Approve(context.Background(), req.ID, ApproveOptions{ShownHash: req.Hash}); err == nil {
		t.Fatal("a request changed after it was shown was approved")
	}
	if fileExists(tf, "ran.txt") {
		t.Error("something ran")
	}
}

// A panic during execution ends the request `failed`, never claimed.
func TestPanicDuringExecutionFails(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	a.execHook = func(*queue.Claim) { panic("boom") }
	req := tf.script(t, "true")
	res, err := a.Approve(context.Background(), req.ID, ApproveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != queue.Failed || !strings.Contains(res.Reason, "boom") {
		t.Fatalf("result = %+v", res)
	}
	if names, _ := os.ReadDir(tf.f.Claimed()); len(names) != 0 {
		t.Errorf("left in claimed/: %v", names)
	}
	// A panicking live display does not stop the command or its capture.
	a.execHook = nil
	req = tf.script(t, "echo one; echo two")
	res, err = a.Approve(context.Background(), req.ID, ApproveOptions{OnOutput: func(string, []byte) { panic("display") }})
	if err != nil || res.Decision != queue.Approved || res.Stdout != "one\ntwo\n" {
		t.Fatalf("result = %+v, %v", res, err)
	}
}

// 1,000 requests from 20 writer processes, two auto-approving approver
// processes: each runs exactly once, each waiter gets its own result, the
// audit verifies, nothing is left in tmp/ or claimed/.
func TestManyWritersTwoApprovers(t *testing.T) {
	writers, each := 20, 50
	if testing.Short() {
		writers, each = 4, 10
	}
	tf := newTestFolder(t)
	var stop []func() error
	for range 2 {
		cmd := tf.helper(t, "auto", "-")
		stdin, _ := cmd.StdinPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		end := sync.OnceValue(func() error { stdin.Close(); return cmd.Wait() })
		stop = append(stop, end)
		t.Cleanup(func() { end() })
	}
	var ws []*exec.Cmd
	for range writers {
		cmd := tf.helper(t, "writer", strconv.Itoa(each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, cmd)
	}
	for _, w := range ws {
		if err := w.Wait(); err != nil {
			t.Errorf("writer: %v", err)
		}
	}
	for _, s := range stop { // an approver may still be auditing the last end
		if err := s(); err != nil {
			t.Errorf("approver: %v", err)
		}
	}
	lines := tf.lines(t, "executed.txt")
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
	}
	if len(lines) != writers*each || len(seen) != writers*each {
		t.Errorf("%d executions of %d distinct requests, want %d", len(lines), len(seen), writers*each)
	}
	tf.q.Recover()
	for _, dir := range []string{tf.f.Tmp(), tf.f.Claimed()} {
		if names, _ := os.ReadDir(dir); len(names) != 0 {
			t.Errorf("left in %s: %d files, first %s", filepath.Base(dir), len(names), names[0].Name())
		}
	}
	recs := tf.verifyAudit(t)
	if ends := countEvents(recs, "exec.end"); ends != writers*each {
		t.Errorf("%d exec.end records, want %d", ends, writers*each)
	}
}

func countEvents(recs []audit.Record, event string) int {
	n := 0
	for _, r := range recs {
		if r.Event == event {
			n++
		}
	}
	return n
}
