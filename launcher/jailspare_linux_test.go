//go:build linux

package launcher

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// spareInits counts this process's children that are jail inits.
func spareInits(t *testing.T) int {
	t.Helper()
	me := strconv.Itoa(os.Getpid())
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[1] != me {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		if bytes.HasPrefix(cmdline, []byte("sandbox-jail-init\x00")) {
			n++
		}
	}
	return n
}

// TestJailSpares: with spares kept (the hook server), each run after the
// first takes an init started ahead, which gets the run's own standard
// streams with its config and the same restrictions as any; a stdin that
// is no file starts an init of its own; turning spares off ends the one
// kept.
func TestJailSpares(t *testing.T) {
	e := newJailEnv(t)
	KeepSpares(true)
	defer KeepSpares(false)
	for i := range 3 {
		in, err := os.CreateTemp(t.TempDir(), "stdin")
		if err != nil {
			t.Fatal(err)
		}
		in.WriteString("stdin-" + strconv.Itoa(i) + "\n")
		in.Seek(0, 0)
		o := e.options(jailModes[0], "/bin/sh", "-c", "cat; echo out-$0; echo err-$0 >&2; grep NoNewPrivs /proc/self/status; cat "+e.secret+" 2>/dev/null || echo secret-hidden", strconv.Itoa(i))
		o.Stdin = in
		out, res := runJailed(t, o)
		in.Close()
		n := strconv.Itoa(i)
		for _, want := range []string{"stdin-" + n, "out-" + n, "err-" + n, "NoNewPrivs:\t1", "secret-hidden"} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d: the output lacks %q:\n%s", i, want, out)
			}
		}
		if res.Code != 0 {
			t.Errorf("run %d: exit %d", i, res.Code)
		}
	}
	testenv.WaitFor(t, "one spare init", func() bool { return spareInits(t) == 1 })
	out, _ := runJailed(t, e.options(jailModes[0], "/bin/sh", "-c", "echo from-a-reader"))
	if !strings.Contains(out, "from-a-reader") {
		t.Errorf("a run whose stdin is no file: %q", out)
	}
	KeepSpares(false)
	testenv.WaitFor(t, "no spare init left after KeepSpares(false)", func() bool { return spareInits(t) == 0 })
}

// TestJailStartAhead: an init started ahead of a run (an agent's
// supervisor while its worktree is checked out) is taken by the next run
// of its kind, which then has its own streams and the same restrictions
// as any, and is not replaced; a run of another kind ends it and starts
// its own; KeepSpares(false) ends one no run took.
func TestJailStartAhead(t *testing.T) {
	e := newJailEnv(t)
	defer KeepSpares(false)
	lim := Limits{Pids: 500}
	run := func(lim Limits, tag string) {
		t.Helper()
		o := e.options(jailModes[0], "/bin/sh", "-c", "echo out-$0; grep NoNewPrivs /proc/self/status; cat "+e.secret+" 2>/dev/null || echo secret-hidden", tag)
		o.Stdin, o.Limits = nil, lim
		started := false
		o.Started = func() { started = true }
		out, res := runJailed(t, o)
		for _, want := range []string{"out-" + tag, "NoNewPrivs:\t1", "secret-hidden"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the output lacks %q:\n%s", tag, want, out)
			}
		}
		if res.Code != 0 || !started {
			t.Errorf("%s: exit %d, Started called: %v", tag, res.Code, started)
		}
	}

	StartAhead(Options{Limits: lim})
	testenv.WaitFor(t, "the init started ahead", func() bool { return spareInits(t) == 1 })
	run(lim, "taken")
	if n := spareInits(t); n != 0 {
		t.Errorf("after the run that took it: %d inits waiting (want none: not replaced)", n)
	}

	StartAhead(Options{Limits: lim})
	testenv.WaitFor(t, "the init started ahead", func() bool { return spareInits(t) == 1 })
	run(Limits{Pids: 600}, "other-kind")
	testenv.WaitFor(t, "the unused init ended by a run of another kind", func() bool { return spareInits(t) == 0 })

	StartAhead(Options{Limits: lim})
	testenv.WaitFor(t, "the init started ahead", func() bool { return spareInits(t) == 1 })
	KeepSpares(false)
	testenv.WaitFor(t, "no init left after KeepSpares(false)", func() bool { return spareInits(t) == 0 })

	StartAhead(Options{Limits: Limits{Pids: -1}}) // refused as Run refuses it
	if n := spareInits(t); n != 0 {
		t.Errorf("limits no run takes started an init ahead (%d)", n)
	}
}
