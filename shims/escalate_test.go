package shims

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// started runs cmd in the background; wait returns what run returns.
func started(t *testing.T, cmd *exec.Cmd) (wait func() (string, string, int)) {
	t.Helper()
	finish := start(t, cmd)
	done := make(chan [3]any, 1)
	go func() {
		o, e, c := finish()
		done <- [3]any{o, e, c}
	}()
	return func() (string, string, int) {
		r := <-done
		return r[0].(string), r[1].(string), r[2].(int)
	}
}

func TestEscalateApprovedStreamsOutputAndExitCode(t *testing.T) {
	fx := newFixture(t, testPolicy)
	ap := fx.approver()
	wait := started(t, fx.shim(fx.shimDir+":"+fx.realDir, []string{EnvSession + "=s1", EnvAgent + "=claude"}, "push", "code", "3"))
	req := fx.pending()
	want := []string{"git", "push", "code", "3"}
	if req.Source != queue.SourceShim || !slices.Equal(req.Shell.Argv, want) || req.Shell.Script != "" ||
		req.Cwd != fx.f.Root || req.Session != "s1" || req.Agent != "claude" || len(req.PolicyReasons) == 0 {
		t.Fatalf("request %+v %+v", req, req.Shell)
	}
	if _, err := ap.Approve(ctx(t), req.ID, approverShown(req)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := wait()
	if code != 3 || out != "pushed (exit 3)\n" || !strings.Contains(errOut, "remote: from stderr\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "needs a human's approval (request "+req.ID) {
		t.Errorf("stderr lacks the waiting notice: %q", errOut)
	}
}

func TestEscalateDeniedExits126WithTheReason(t *testing.T) {
	fx := newFixture(t, testPolicy)
	ap := fx.approver()
	wait := started(t, fx.shim(fx.shimDir+":"+fx.realDir, nil, "push", "origin", "main"))
	req := fx.pending()
	if _, err := ap.Deny(ctx(t), req.ID, "not on a Friday"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := wait()
	if code != ExitRefused || out != "" || !strings.Contains(errOut, "was denied by tester@host: not on a Friday") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestEscalateCIDenialSaysCI(t *testing.T) {
	fx := newFixture(t, testPolicy)
	ap := fx.approver()
	wait := started(t, fx.shim(fx.shimDir+":"+fx.realDir, []string{EnvCI + "=1"}, "push"))
	req := fx.pending()
	if err := fx.q.Deny(req.ID, queue.Approver{User: "ci@runner", Surface: "ci"}, "CI mode, no human to ask"); err != nil {
		t.Fatal(err)
	}
	_ = ap
	_, errOut, code := wait()
	if code != ExitRefused || !strings.Contains(errOut, "denied by CI mode: CI mode, no human to ask") ||
		strings.Contains(errOut, "waiting for") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestNoPolicyCacheEscalates(t *testing.T) {
	fx := newFixture(t, "")
	wait := started(t, fx.shim(fx.shimDir+":"+fx.realDir, nil, "status"))
	req := fx.pending()
	if !strings.Contains(strings.Join(req.PolicyReasons, " "), "no policy cache") {
		t.Errorf("reasons %q", req.PolicyReasons)
	}
	if _, err := fx.approver().Deny(ctx(t), req.ID, "no"); err != nil {
		t.Fatal(err)
	}
	if _, _, code := wait(); code != ExitRefused {
		t.Errorf("exit %d", code)
	}
}

func TestInterruptWithdrawsAPendingRequest(t *testing.T) {
	for _, jailed := range []bool{false, true} {
		name := map[bool]string{false: "directly", true: "through the supervisor"}[jailed]
		t.Run(name, func(t *testing.T) {
			fx := newFixture(t, testPolicy)
			env := []string{EnvSession + "=run-1"}
			if jailed {
				env = append(env, EnvJail+"=1")
				c, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); ServeWithdrawals(c, fx.q, "run-1", nil) }()
				t.Cleanup(func() { cancel(); <-done })
			}
			cmd := fx.shim(fx.shimDir+":"+fx.realDir, env, "push")
			wait := started(t, cmd)
			req := fx.pending()
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := wait()
			res, err := fx.q.Result(req.ID)
			if code != 130 || err != nil || res.Decision != queue.Withdrawn || !strings.Contains(errOut, "withdrawn") {
				t.Fatalf("exit %d, stderr %q, result %+v %v", code, errOut, res, err)
			}
		})
	}
}

func TestSupervisorWithdrawsOnlyItsOwnRun(t *testing.T) {
	fx := newFixture(t, testPolicy)
	mk := func(source, session string) string {
		id, err := fx.q.SubmitDirect(context.Background(), &queue.Request{Kind: queue.KindShell,
			Shell: &queue.ShellPayload{Argv: []string{"git", "push"}}, Cwd: fx.f.Root, Source: source, Session: session})
		if err != nil {
			t.Fatal(err)
		}
		writeExec(t, fx.f.Tmp()+"/"+id+markerExt, "")
		return id
	}
	other, hook, mine := mk(queue.SourceShim, "run-other"), mk(queue.SourceClaudeHook, "run-1"), mk(queue.SourceShim, "run-1")
	writeExec(t, fx.f.Tmp()+"/NOT-AN-ID"+markerExt, "")
	withdrawMarked(fx.q, "run-1", slog.New(slog.DiscardHandler))
	for id, want := range map[string]bool{other: false, hook: false, mine: true} {
		res, err := fx.q.Result(id)
		if got := err == nil && res.Decision == queue.Withdrawn; got != want {
			t.Errorf("%s withdrawn = %v, want %v", id, got, want)
		}
	}
}

func TestStdinForwarding(t *testing.T) {
	big := bytes.Repeat([]byte("x"), MaxStdin+1)
	tests := []struct {
		name     string
		stdin    func(t *testing.T) io.Reader
		wantIn   []byte
		wantNote string
	}{
		{"small input is forwarded whole", func(*testing.T) io.Reader { return strings.NewReader("line 1\nline 2\n") }, []byte("line 1\nline 2\n"), ""},
		{"empty input", func(*testing.T) io.Reader { return strings.NewReader("") }, nil, ""},
		{"more than 1 MiB is not", func(*testing.T) io.Reader { return bytes.NewReader(big) }, nil, "larger than 1048576 bytes"},
		{"input that does not end is not", openPipe, nil, "did not end within"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, testPolicy)
			cmd := fx.shim(fx.shimDir+":"+fx.realDir, nil, "push", "cat")
			cmd.Stdin = tc.stdin(t)
			wait := started(t, cmd)
			req := fx.pending()
			// The note is for the agent; the human's "why" stays empty
			// (it once showed "standard input is a terminal: not
			// forwarded" as the justification).
			if !bytes.Equal(req.Shell.Stdin, tc.wantIn) || req.Justification != "" {
				t.Fatalf("stdin %d bytes, justification %q", len(req.Shell.Stdin), req.Justification)
			}
			if _, err := fx.approver().Approve(ctx(t), req.ID, approverShown(req)); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var out, errs string
			var code int
			go func() { out, errs, code = wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the shim did not end")
			}
			if code != 0 || out != string(tc.wantIn) {
				t.Errorf("exit %d, the command read %d bytes", code, len(out))
			}
			if tc.wantNote != "" && (!strings.Contains(errs, tc.wantNote) || !strings.Contains(errs, "so the approved command will run without it")) {
				t.Errorf("stderr does not tell the agent: %q", errs)
			}
		})
	}
}

// openPipe is a pipe whose writer stays open until the test ends: input
// that never ends.
func openPipe(t *testing.T) io.Reader {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r
}

// A jailed shim killed outright cannot ask to withdraw; the supervisor
// sees its liveness lock go and withdraws the request.
func TestSupervisorWithdrawsAKilledShim(t *testing.T) {
	fx := newFixture(t, testPolicy)
	c, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); ServeWithdrawals(c, fx.q, "run-9", nil) }()
	t.Cleanup(func() { cancel(); <-served })
	live := fx.shim(fx.shimDir+":"+fx.realDir, []string{EnvJail + "=1", EnvSession + "=run-9"}, "push", "a")
	waitLive := started(t, live)
	first := fx.pending()
	cmd := fx.shim(fx.shimDir+":"+fx.realDir, []string{EnvJail + "=1", EnvSession + "=run-9"}, "push", "b")
	wait := started(t, cmd)
	var second *queue.Request
	for i := 0; i < 500 && second == nil; i++ {
		reqs, _ := fx.q.Pending()
		for _, r := range reqs {
			if r.ID != first.ID {
				second = r
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if second == nil {
		t.Fatal("no second request")
	}
	cmd.Process.Kill()
	wait()
	var res *queue.Result
	for i := 0; i < 1000 && res == nil; i++ {
		res, _ = fx.q.Result(second.ID)
		time.Sleep(10 * time.Millisecond)
	}
	if res == nil || res.Decision != queue.Withdrawn || !strings.Contains(res.Reason, "killed") {
		t.Fatalf("the killed shim's request: %+v", res)
	}
	if _, err := fx.q.Result(first.ID); err == nil {
		t.Error("the live shim's request was decided")
	}
	live.Process.Signal(syscall.SIGTERM)
	if _, _, code := waitLive(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("live shim exit %d", code)
	}
}
