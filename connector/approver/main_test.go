package approver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// The test binary doubles as the processes of the fault tests: with
// APPROVER_TEST_ROLE set it acts as an approver or a writer on the folder
// APPROVER_TEST_ROOT (per-user state from XDG_STATE_HOME) and exits.
const (
	roleVar = "APPROVER_TEST_ROLE"
	rootVar = "APPROVER_TEST_ROOT"
)

func TestMain(m *testing.M) {
	role := os.Getenv(roleVar)
	if role == "" {
		os.Exit(m.Run())
	}
	if err := runRole(role, os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, "role", role, "failed:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runRole(role, arg string) error {
	f, err := folder.New(os.Getenv(rootVar))
	if err != nil {
		return err
	}
	q, err := queue.Open(f)
	if err != nil {
		return err
	}
	defer q.Close()
	switch role {
	case "writer":
		n, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		return writer(q, n)
	}
	st, err := userstate.Open(true)
	if err != nil {
		return err
	}
	lg, err := audit.Open(f, st)
	if err != nil {
		return err
	}
	defer lg.Close()
	a, err := New(Options{Queue: q, Audit: lg, Identity: Identity{User: "helper@test", Surface: SurfaceCI},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	switch role {
	case "approve":
		res, err := a.Approve(context.Background(), arg, ApproveOptions{})
		if err != nil {
			return err
		}
		fmt.Println(res.Decision)
		return nil
	case "auto":
		return autoApprove(a, q)
	}
	return fmt.Errorf("unknown role %q", role)
}

// autoApprove is the test-only approver that approves everything: it
// follows the queue and approves each pending request (losing races to
// the other approver is normal) until its stdin closes.
func autoApprove(a *Approver, q *queue.Queue) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		bufio.NewReader(os.Stdin).ReadString(0)
		cancel()
	}()
	changes, err := q.Changes(ctx)
	if err != nil {
		return err
	}
	for range changes {
		reqs, _ := q.Pending()
		for _, r := range reqs {
			_, err := a.Approve(ctx, r.ID, ApproveOptions{ShownHash: r.Hash})
			if err != nil && !errors.Is(err, ErrAlreadyTaken) && !errors.Is(err, ErrAlreadyDecided) && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// writer submits n requests, each appending its own marker, waits for
// every result concurrently and checks that each got its own output.
func writer(q *queue.Queue, n int) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		marker := fmt.Sprintf("p%d-%d", os.Getpid(), i)
		req := &queue.Request{Kind: queue.KindShell, Cwd: q.Folder().Root, Source: queue.SourceCLI,
			Session: marker, Shell: &queue.ShellPayload{Argv: []string{"tee", "-a", "executed.txt"}, Stdin: []byte(marker + "\n")}}
		id, err := submitRetry(q, req)
		if err != nil {
			return err
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res, err := q.Wait(ctx, id)
			switch {
			case err != nil:
				errs <- err
			case res.ID != id || res.Decision != queue.Approved || strings.TrimSpace(res.Stdout) != marker:
				errs <- fmt.Errorf("%s (%s) got %s %s %q", id, marker, res.ID, res.Decision, res.Stdout)
			}
		})
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// helper starts the test binary in role on tf's folder.
func (tf *testFolder) helper(t testing.TB, role, arg string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$", arg)
	cmd.Env = append(os.Environ(), roleVar+"="+role, rootVar+"="+tf.f.Root)
	cmd.Stderr = testWriter{t}
	return cmd
}

// submitRetry submits req, waiting while the folder is at its limit of
// pending requests (bounded).
func submitRetry(q *queue.Queue, req *queue.Request) (string, error) {
	for range 6000 {
		id, _, err := q.Submit(context.Background(), req)
		if !errors.Is(err, queue.ErrQueueFull) {
			return id, err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "", queue.ErrQueueFull
}
