package queue_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/queue/queuetest"
)

const (
	writers           = 20
	requestsPerWriter = 50
)

func TestManyWritersTwoApprovers(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 requests from 20 processes")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	var mu sync.Mutex
	executed := map[string]int{} // guarded by mu
	exec1 := func(c *queue.Claim) *queue.Result {
		mu.Lock()
		executed[c.ID()]++
		mu.Unlock()
		return queuetest.Echo(c)
	}
	actx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range 2 {
		q := openQueue(t, root)
		wg.Go(func() {
			if _, err := queuetest.AutoApprove(actx, q, exec1, func(p queue.Problem) { t.Errorf("problem: %v", p) }); err != nil {
				t.Errorf("approver: %v", err)
			}
		})
	}

	var cmds []*exec.Cmd
	for w := range writers {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "QUEUE_TEST_CHILD=writer", "QUEUE_TEST_DIR="+root,
			"QUEUE_TEST_WRITER="+strconv.Itoa(w), "QUEUE_TEST_N="+strconv.Itoa(requestsPerWriter))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	stop()
	wg.Wait()

	if len(executed) != writers*requestsPerWriter {
		t.Errorf("executed %d distinct requests, want %d", len(executed), writers*requestsPerWriter)
	}
	for id, n := range executed {
		if n != 1 {
			t.Errorf("%s executed %d times", id, n)
		}
	}
	f, _ := folder.New(root)
	for _, dir := range []string{f.Tmp(), f.Claimed(), f.Pending(), f.Quarantine()} {
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s holds %d entries", dir, len(entries))
		}
	}
	if entries, _ := os.ReadDir(f.Done()); len(entries) != writers*requestsPerWriter {
		t.Errorf("done/ holds %d results", len(entries))
	}
}

func openQueue(t testing.TB, root string, opts ...queue.Option) *queue.Queue {
	t.Helper()
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// writerChild submits N distinct requests one after the other and checks
// that each wait returns that request's own result.
func writerChild() int {
	f, err := folder.New(os.Getenv("QUEUE_TEST_DIR"))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	q, err := queue.Open(f)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	n, _ := strconv.Atoi(os.Getenv("QUEUE_TEST_N"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for i := range n {
		script := fmt.Sprintf("echo writer %s request %d", os.Getenv("QUEUE_TEST_WRITER"), i)
		req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script},
			Cwd: "/tmp", Source: queue.SourceShim, Session: "w" + os.Getenv("QUEUE_TEST_WRITER")}
		id, joined, err := q.Submit(ctx, req)
		if err != nil || joined {
			fmt.Println("submit:", err, joined)
			return 1
		}
		res, err := q.Wait(ctx, id)
		if err != nil {
			fmt.Println("wait:", err)
			return 1
		}
		if res.Decision != queue.Approved || res.Stdout != script || res.RequestHash != req.Hash {
			fmt.Printf("wrong result for %s: %+v\n", id, res)
			return 1
		}
	}
	return 0
}
