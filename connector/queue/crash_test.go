package queue

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// startClaimer re-executes the test binary as a claimer of id and waits
// until it has claimed.
func startClaimer(t *testing.T, q *Queue, id string, begin bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	b := "0"
	if begin {
		b = "1"
	}
	cmd.Env = append(os.Environ(), "QUEUE_TEST_CHILD=claimer", "QUEUE_TEST_DIR="+q.f.Root,
		"QUEUE_TEST_ID="+id, "QUEUE_TEST_BEGIN="+b)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "claimed" {
		t.Fatalf("child: %q", line)
	}
	return cmd
}

func TestCrashedApproverIsInterrupted(t *testing.T) {
	for _, begin := range []bool{false, true} {
		t.Run(fmt.Sprintf("begun=%v", begin), func(t *testing.T) {
			q := testQueue(t)
			id := submit(t, q, shellReq("make deploy", "s"))
			cmd := startClaimer(t, q, id, begin)

			// Alive: recovery leaves it alone, nobody else can claim it.
			if p := q.Recover(); len(p) != 0 {
				t.Fatalf("problems: %v", p)
			}
			if _, err := q.Result(id); !errors.Is(err, ErrNotFound) {
				t.Fatalf("result while the approver lives: %v", err)
			}
			if _, err := q.Claim(id); !errors.Is(err, ErrAlreadyClaimed) {
				t.Fatalf("claim while held: %v", err)
			}

			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			q.Recover()
			res, err := q.Result(id)
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != Interrupted || res.Approver.Surface != "recovery" {
				t.Fatalf("result = %+v", res)
			}
			if _, err := q.Claim(id); !errors.Is(err, ErrAlreadyClaimed) {
				t.Fatalf("re-claim after crash: %v", err)
			}
			if n := names(t, q.f.Claimed()); len(n) != 0 {
				t.Fatalf("claimed/ = %v", n)
			}
			if res2, _ := q.Wait(testCtx(t), id); res2 == nil || res2.Decision != Interrupted {
				t.Fatalf("waiter got %+v", res2)
			}
		})
	}
}

func TestCrashAfterDenyGateIsDenied(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("make deploy", "s"))
	cmd := startClaimer(t, q, id, false)
	if err := q.Deny(id, Approver{User: "bob@h", Surface: "cli"}, "no"); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	q.Recover()
	res, err := q.Result(id)
	if err != nil || res.Decision != Denied || res.Approver.User != "bob@h" || res.Reason != "no" {
		t.Fatalf("result = %+v, %v", res, err)
	}
}
