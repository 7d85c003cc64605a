package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func TestRunCLI(t *testing.T) {
	requireRunJail(t)
	bin, root := sandboxBinary(t), runProject(t)
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"exit status", []string{"--", "/bin/sh", "-c", "exit 3"}, 3, ""},
		{"success", []string{"--", "/bin/true"}, 0, ""},
		{"killed by a signal", []string{"--", "/bin/sh", "-c", "kill -9 $$"}, 137, ""},
		{"not found", []string{"--", "no-such-command"}, 127, "not found"},
		{"unknown layer", []string{"--allow-degraded", "bogus", "--", "/bin/true"}, 2, "unknown layer"},
		{"bad size", []string{"--memory", "lots", "--", "/bin/true"}, 2, "--memory"},
		{"pids limit", []string{"--pids", "20", "--", "/bin/sh", "-c", "for i in $(seq 40); do sleep 5 & done; wait"}, 2, "process limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"run", "--dir", root}, tc.args...)...)
			var errw bytes.Buffer
			cmd.Stderr = &errw
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(errw.String(), tc.err) {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errw.String(), tc.code, tc.err)
			}
		})
	}
}

// TestRunSignals: SIGTERM to the supervisor reaches the command, whose
// exit status comes back; SIGKILL of the supervisor leaves nothing.
func TestRunSignals(t *testing.T) {
	requireRunJail(t)
	bin, root := sandboxBinary(t), runProject(t)
	marker := filepath.Join(root, "ready")
	script := `trap 'exit 42' TERM; touch ` + marker + `; while :; do sleep 0.05; done`
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{{"SIGTERM is forwarded", syscall.SIGTERM, 42}, {"SIGKILL kills the jail", syscall.SIGKILL, -1}} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(marker)
			cmd := exec.Command(bin, "run", "--dir", root, "--", "/bin/sh", "-c", script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			testenv.WaitFor(t, marker, func() bool { _, err := os.Stat(marker); return err == nil })
			children := descendants(cmd.Process.Pid)
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != tc.code {
				t.Errorf("supervisor ended with %v, want exit %d", err, tc.code)
			}
			for i := 0; i < 500 && len(liveOf(children)) > 0; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			if left := liveOf(children); len(left) > 0 {
				t.Errorf("jailed processes survived: %v", left)
			}
		})
	}
}
