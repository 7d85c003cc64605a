package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var requestIDRe = regexp.MustCompile(`request ([a-z0-9-]+) (waiting|joined)`)

// agentRequest starts `sandbox request ARGS` as an agent would and returns
// it with its request id.
type agentRequest struct {
	id       string
	out, err *transcript
	wait     func() int
	proc     *os.Process
}

func startRequest(t *testing.T, root, session string, stdin string, args ...string) *agentRequest {
	t.Helper()
	cmd := sandboxCmd(t, root, append([]string{"request", "--wait", "60s"}, args...)...)
	cmd.Env = append(cmd.Env, "SANDBOX_SESSION="+session)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, errt := started(t, cmd)
	errt.waitFor(t, "waiting for approval", 1)
	m := requestIDRe.FindStringSubmatch(errt.String())
	if m == nil {
		t.Fatalf("no request id in %q", errt.String())
	}
	return &agentRequest{id: m[1], out: out, err: errt, wait: func() int { return exitOf(t, cmd) }, proc: cmd.Process}
}

// plainWatch starts sandbox watch --plain on root with a pipe for input.
func plainWatch(t *testing.T, root string) (screen *transcript, key func(string), wait func() int) {
	t.Helper()
	watch := sandboxCmd(t, root, "watch", "--plain")
	keys, _ := watch.StdinPipe()
	screen, _ = started(t, watch)
	screen.waitFor(t, "waiting for requests", 1)
	return screen, func(line string) { fmt.Fprintln(keys, line) }, func() int { return exitOf(t, watch) }
}

// sandbox watch --plain driven through a pipe, as a script or a dumb
// terminal would: approve, deny with a reason, and every agent-controlled
// text escaped.
func TestWatchPlainThroughAPipe(t *testing.T) {
	root := project(t, false)
	screen, key, wait := plainWatch(t, root)

	r1 := startRequest(t, root, "s1", "", "--script", "echo approved-output; echo to-stderr >&2; exit 3")
	screen.waitFor(t, "── request "+r1.id, 1)
	screen.waitFor(t, "[a] approve once", 1)
	key("a")
	if code := r1.wait(); code != 3 {
		t.Errorf("approved request exit %d, want 3", code)
	}
	if r1.out.String() != "approved-output\n" || !strings.Contains(r1.err.String(), "to-stderr") {
		t.Errorf("agent saw stdout %q stderr %q", r1.out.String(), r1.err.String())
	}
	screen.waitFor(t, "exited 3", 1)

	r2 := startRequest(t, root, "s2", "", "--script", "echo must-not-run >> ran.txt")
	screen.waitFor(t, "── request "+r2.id, 1)
	key("d not on a Friday")
	if code := r2.wait(); code != 126 || !strings.Contains(r2.err.String(), "not on a Friday") {
		t.Errorf("denied request: exit %d, stderr %q", code, r2.err.String())
	}
	if _, err := os.Stat(filepath.Join(root, "ran.txt")); err == nil {
		t.Error("a denied request ran")
	}

	evil := "echo \x1b[2J\x1b]0;title\a hidden\u202eevil\u200b"
	r5 := startRequest(t, root, "s5", "", "--script", evil)
	screen.waitFor(t, "── request "+r5.id, 1)
	key("d")
	r5.wait()
	key("q")
	if code := wait(); code != 0 {
		t.Errorf("watch exit %d", code)
	}
	shown := screen.String()
	for _, bad := range []string{"\x1b[2J", "\x1b]0", "\u202e", "\u200b"} {
		if strings.Contains(shown, bad) {
			t.Errorf("watch printed %q raw", bad)
		}
	}
	for _, want := range []string{`\x1b[2J`, `\u202e`, `\u200b`} {
		if !strings.Contains(shown, want) {
			t.Errorf("watch did not show %q", want)
		}
	}
	if !strings.Contains(shown, "\a") {
		t.Error("no bell for arriving requests")
	}
}

// watch shows, at start, what the human must know about: a request whose
// approver was killed while running it (interrupted, never run again) and
// a bad file in pending/ (quarantined); neither blocks the next request.
func TestWatchShowsInterruptedAndQuarantined(t *testing.T) {
	root := project(t, false)
	r := startRequest(t, root, "k", "", "--script", "echo $$ >> pids.txt; exec sleep 60")
	approve := sandboxCmd(t, root, "approve", r.id)
	if err := approve.Start(); err != nil {
		t.Fatal(err)
	}
	pids := filepath.Join(root, "pids.txt")
	for i := 0; ; i++ {
		if data, _ := os.ReadFile(pids); len(data) > 0 {
			t.Cleanup(func() { killText(string(data)) })
			break
		}
		if i > 1000 {
			t.Fatal("the command did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	approve.Process.Kill()
	approve.Wait()
	os.Symlink("/etc/passwd", filepath.Join(root, ".sandbox", "escalations", "pending", "01aaaaaaaaaaaaaaaaaaaaaaaa.json"))

	screen, key, wait := plainWatch(t, root) // its Recover finds the dead approver
	screen.waitFor(t, "! interrupted: "+r.id, 1)
	screen.waitFor(t, "quarantine", 1)
	if code := r.wait(); code != 125 || !strings.Contains(r.err.String(), "interrupted") {
		t.Errorf("the agent's request after its approver died: exit %d, %s", code, r.err.String())
	}
	next := startRequest(t, root, "k2", "", "--script", "echo still-working")
	screen.waitFor(t, "── request "+next.id, 1)
	key("a")
	if code := next.wait(); code != 0 {
		t.Errorf("next request: exit %d", code)
	}
	key("q")
	wait()
	data, _ := os.ReadFile(pids)
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Errorf("the interrupted command ran %d times", n)
	}
}

func killText(pids string) {
	for _, f := range strings.Fields(pids) {
		if pid, err := strconv.Atoi(f); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
