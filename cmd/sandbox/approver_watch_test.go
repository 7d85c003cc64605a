package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	wait := func() int {
		code := exitOf(t, cmd)
		out.drained(t)
		errt.drained(t)
		return code
	}
	return &agentRequest{id: m[1], out: out, err: errt, wait: wait, proc: cmd.Process}
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
	t.Parallel()
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
