//go:build unix

package approver

import (
	"context"
	"errors"
	"strconv"
	"syscall"
	"testing"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// kill -9 of the approver while the command runs: after Recover the
// request is `interrupted`, the audit verifies, and nothing runs twice.
func TestApproverKilledDuringExecution(t *testing.T) {
	tf := newTestFolder(t)
	req := tf.script(t, "echo $$ >> pids.txt; exec sleep 60")
	cmd := tf.helper(t, "approve", req.ID)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the command to start", func() bool { return len(tf.lines(t, "pids.txt")) == 1 })
	t.Cleanup(func() { killPids(t, tf.lines(t, "pids.txt")) })
	cmd.Process.Kill()
	cmd.Wait()

	tf.q.Recover()
	res, err := tf.q.Result(req.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != queue.Interrupted {
		t.Fatalf("decision = %s (%s), want interrupted", res.Decision, res.Reason)
	}
	rep, err := audit.Verify(tf.f, tf.st)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK && !(rep.TornTail && len(rep.Problems) == 1) {
		t.Fatalf("audit after kill -9: %+v", rep)
	}
	t.Logf("audit after kill -9: ok=%v torn tail=%v records=%d", rep.OK, rep.TornTail, rep.Records)
	// Nobody can run it again.
	a := tf.approver(t, SurfaceCLI, nil)
	if _, err := a.Approve(context.Background(), req.ID, ApproveOptions{}); !errors.Is(err, ErrAlreadyDecided) {
		t.Errorf("approve after the crash: %v", err)
	}
	tf.q.Recover()
	if n := len(tf.lines(t, "pids.txt")); n != 1 {
		t.Errorf("the command ran %d times", n)
	}
}

func killPids(t *testing.T, pids []string) {
	for _, p := range pids {
		if pid, err := strconv.Atoi(p); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
