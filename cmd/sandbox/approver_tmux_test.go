package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// tmuxPane runs sandbox watch in a real terminal (a tmux pane), so that
// single-key input in raw mode is what is tested.
type tmuxPane struct {
	t    *testing.T
	tmux string
	sock string
}

func newTmuxPane(t *testing.T, command string) *tmuxPane {
	t.Helper()
	p := &tmuxPane{t: t, tmux: testenv.RequireCommand(t, "tmux"), sock: filepath.Join(t.TempDir(), "tmux.sock")}
	p.run("new-session", "-d", "-x", "180", "-y", "60", "-s", "w", command)
	t.Cleanup(func() { exec.Command(p.tmux, "-S", p.sock, "kill-server").Run() })
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

func (p *tmuxPane) keys(keys ...string) { p.run(append([]string{"send-keys", "-t", "w"}, keys...)...) }

func (p *tmuxPane) screen() string {
	out, _ := exec.Command(p.tmux, "-S", p.sock, "capture-pane", "-p", "-J", "-t", "w", "-S", "-500").CombinedOutput()
	return string(out)
}

func (p *tmuxPane) waitFor(want string) {
	p.t.Helper()
	for range 600 {
		if strings.Contains(p.screen(), want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("timed out waiting for %q on screen:\n%s", want, p.screen())
}

func (p *tmuxPane) alive() bool {
	return exec.Command(p.tmux, "-S", p.sock, "has-session", "-t", "w").Run() == nil
}

// sandbox watch in a terminal: one key approves, arrow keys are ignored
// (no part of an escape sequence is taken for a command key), d asks for a
// reason on a line, q quits and the session ends.
func TestWatchInATerminal(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	pane := newTmuxPane(t, sandboxLine(t, root, "watch", root))
	pane.waitFor("waiting for requests")

	r1 := startRequest(t, root, "t1", "", "--script", "echo from-the-terminal")
	pane.waitFor("── request " + r1.id)
	pane.waitFor("approve once")
	pane.keys("Up", "Down", "Left", "M-a", "F5")
	time.Sleep(200 * time.Millisecond) // let the ignored keys arrive first
	if s := pane.screen(); strings.Contains(s, "pattern (Enter") || strings.Contains(s, "; running") {
		t.Fatalf("an escape sequence acted as a key:\n%s", s)
	}
	pane.keys("a")
	if code := r1.wait(); code != 0 || r1.out.String() != "from-the-terminal\n" {
		t.Fatalf("approved: exit %d, output %q\n%s", code, r1.out.String(), pane.screen())
	}
	pane.waitFor("exited 0")

	r2 := startRequest(t, root, "t2", "", "--script", "echo nope")
	pane.waitFor("── request " + r2.id)
	pane.keys("d")
	pane.waitFor("reason for the model")
	pane.keys("-l", "too risky")
	pane.keys("BSpace", "y", "Enter")
	if code := r2.wait(); code != 126 || !strings.Contains(r2.err.String(), "too risky") {
		t.Fatalf("denied: exit %d, stderr %q\n%s", code, r2.err.String(), pane.screen())
	}
	pane.keys("q")
	for range 200 {
		if !pane.alive() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("watch did not quit on q:\n%s", pane.screen())
}

// quit presses q and waits (bounded) for watch to end.
//
// watch drops the keys typed before its screen last changed (so that a key
// meant for one request never acts on the next), and a request that
// arrives or goes stale redraws it: q is typed again each second until
// watch has quit.
func (p *tmuxPane) quit() {
	p.t.Helper()
	for end := time.Now().Add(testenv.WaitTimeout); time.Now().Before(end); {
		p.keys("q")
		for range 20 {
			if !p.alive() {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	p.t.Fatalf("watch did not quit on q:\n%s", p.screen())
}

// visible is what the pane shows now (no scrollback).
func (p *tmuxPane) visible() string {
	out, _ := exec.Command(p.tmux, "-S", p.sock, "capture-pane", "-p", "-J", "-t", "w").CombinedOutput()
	return string(out)
}

// While a request is on screen, new arrivals are counted on the prompt's
// line instead of scrolling it away; the prompt names the request it
// acts on; accepting a policy change is one key, as every other action.
func TestWatchArrivalsKeepTheRequestOnScreen(t *testing.T) {
	t.Parallel()
	root := project(t, true)
	pane := newTmuxPane(t, sandboxLine(t, root, "watch", root))
	pane.waitFor("waiting for requests")
	r1 := startRequest(t, root, "k1", "", "--script", "echo first-one")
	pane.waitFor(r1.id + " ")
	pane.waitFor("[a] approve once")
	before := strings.Count(pane.screen(), "\n")
	var later []*agentRequest
	for i := range 3 {
		later = append(later, startRequest(t, root, "k2", "", "--script", "echo later-"+string(rune('a'+i))))
	}
	pane.waitFor("(+3 new, 4 pending)")
	vis := pane.visible()
	if !strings.Contains(vis, "── request "+r1.id) || strings.Contains(vis, "new request "+later[0].id) {
		t.Errorf("the arrivals pushed the request shown:\n%s", vis)
	}
	if after := strings.Count(pane.screen(), "\n"); after != before {
		t.Errorf("arrivals added %d lines", after-before)
	}
	if !strings.Contains(vis, r1.id+" echo first-one: [a] approve once") {
		t.Errorf("the prompt does not name the request it acts on:\n%s", vis)
	}
	pane.keys("a")
	if code := r1.wait(); code != 0 {
		t.Fatalf("approve: exit %d\n%s", code, pane.screen())
	}
	pane.waitFor("── request " + later[0].id)
	for _, r := range later {
		r.proc.Kill()
	}

	data, _ := os.ReadFile(filepath.Join(root, ".sandbox", "policy.yaml"))
	os.WriteFile(filepath.Join(root, ".sandbox", "policy.yaml"), append(data, []byte("# a comment\n")...), 0o644)
	pane.keys("p")
	pane.waitFor("accept this policy? [y]")
	pane.keys("y") // no Enter
	pane.waitFor("accepted; it is in force from now on")
	pane.quit()
}
