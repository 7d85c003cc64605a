//go:build linux

package launcher

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// running reports whether a process with exactly this command line runs.
func running(argv ...string) bool {
	want := []byte(strings.Join(argv, "\x00") + "\x00")
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, want) {
			if st, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil {
				if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
					continue // a zombie runs nothing
				}
			}
			return true
		}
	}
	return false
}

// TestJailEnded: Options.Ended hears of the command's end, with its
// status, once nothing of the jail runs any more: what the command left
// running in the background is gone by then, not waited for; Run still
// returns the same status after the teardown. A jail without a pid
// namespace of its own cannot tell: Ended is not called there.
func TestJailEnded(t *testing.T) {
	e := newJailEnv(t)
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			bg := []string{"sleep", "7.31"} // a command line no other process has
			o := e.options(m, "/bin/sh", "-c", `sleep 7.31 & echo hi; exit 3`)
			heard, bgAtEnd := -1, false
			o.Ended = func(st ExitStatus) {
				heard, bgAtEnd = st.Code, running(bg...)
			}
			out, res := runJailed(t, o)
			if res.Code != 3 || !strings.Contains(out, "hi") {
				t.Fatalf("exit %d: %s", res.Code, out)
			}
			if m.disable == nil {
				if heard != 3 || bgAtEnd {
					t.Errorf("Ended heard %d (want 3); the background job still ran then: %v", heard, bgAtEnd)
				}
			} else if heard != -1 {
				t.Errorf("Ended called without a pid namespace (%d)", heard)
			}
			if running(bg...) {
				t.Error("the background job outlived the jail")
			}
		})
	}
}
