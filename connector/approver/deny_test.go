package approver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func TestDenyPendingSendsTheReasonBack(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceWatch, nil)
	req := tf.script(t, "echo ran >> ran.txt")
	res, err := a.Deny(context.Background(), req.ID, "not on a Friday")
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != queue.Denied || res.Reason != "not on a Friday" || res.Approver.Surface != SurfaceWatch {
		t.Fatalf("result = %+v", res)
	}
	if tf.lines(t, "ran.txt") != nil {
		t.Error("a denied request ran")
	}
	if _, err := a.Approve(context.Background(), req.ID, ApproveOptions{}); !errors.Is(err, ErrAlreadyDecided) {
		t.Errorf("approve after deny: %v", err)
	}
	if _, err := a.Deny(context.Background(), req.ID, ""); !errors.Is(err, ErrAlreadyDecided) {
		t.Errorf("deny twice: %v", err)
	}
	if got := events(tf.verifyAudit(t), req.ID); !slices.Equal(got, []string{"request.denied:denied"}) {
		t.Errorf("audit = %v", got)
	}
}

// A deny that reaches a request another approver has claimed but not yet
// started wins: nothing runs.
func TestDenyWinsOverAnApprovalNotYetStarted(t *testing.T) {
	tf := newTestFolder(t)
	approving := tf.approver(t, SurfaceCLI, nil)
	denying := tf.approver(t, SurfaceWatch, nil)
	req := tf.script(t, "echo ran >> ran.txt")
	denied := make(chan error, 1)
	var denyRes *queue.Result
	approving.afterClaim = func(c *queue.Claim) {
		go func() {
			var err error
			denyRes, err = denying.Deny(context.Background(), c.ID(), "changed my mind")
			denied <- err
		}()
		testenv.WaitFor(t, "the deny gate", func() bool {
			_, err := os.Lstat(filepath.Join(tf.f.Claimed(), c.ID()+".gate"))
			return err == nil
		})
	}
	res, err := approving.Approve(context.Background(), req.ID, ApproveOptions{})
	if !errors.Is(err, ErrDeniedBeforeStart) {
		t.Fatalf("approve: %v, want ErrDeniedBeforeStart", err)
	}
	if err := <-denied; err != nil {
		t.Fatalf("deny: %v", err)
	}
	if res == nil || res.Decision != queue.Denied || res.Reason != "changed my mind" {
		t.Errorf("approver's result = %+v", res)
	}
	if denyRes == nil || denyRes.Decision != queue.Denied {
		t.Errorf("denier's result = %+v", denyRes)
	}
	if tf.lines(t, "ran.txt") != nil {
		t.Error("the request ran although the deny won")
	}
	tf.verifyAudit(t)
}

// A deny for a request already running says it is too late.
func TestDenyTooLate(t *testing.T) {
	tf := newTestFolder(t)
	approving := tf.approver(t, SurfaceCLI, nil)
	denying := tf.approver(t, SurfaceWatch, nil)
	req := tf.script(t, "touch started; while [ ! -e release ]; do sleep 0.01; done; echo ran >> ran.txt")
	done := make(chan *queue.Result, 1)
	go func() {
		res, err := approving.Approve(context.Background(), req.ID, ApproveOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	testenv.WaitFor(t, "the command to start", func() bool { return fileExists(tf, "started") })
	_, err := denying.Deny(context.Background(), req.ID, "stop")
	if !errors.Is(err, ErrTooLate) {
		t.Errorf("deny while running: %v, want ErrTooLate", err)
	}
	os.WriteFile(filepath.Join(tf.f.Root, "release"), nil, 0o644)
	res := <-done
	if res == nil || res.Decision != queue.Approved || len(tf.lines(t, "ran.txt")) != 1 {
		t.Fatalf("result = %+v", res)
	}
}

func fileExists(tf *testFolder, name string) bool {
	_, err := os.Lstat(filepath.Join(tf.f.Root, name))
	return err == nil
}
