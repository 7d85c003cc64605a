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
