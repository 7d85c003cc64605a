//go:build linux

package launcher

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func TestJailPidsLimit(t *testing.T) {
	e := newJailEnv(t)
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			o := e.options(m, e.probeArgv("forks", "500")...)
			o.Limits = Limits{Pids: 40}
			out, res := runJailed(t, o)
			if !strings.Contains(out, "err EAGAIN") || !res.PidsLimit {
				t.Fatalf("forks were not stopped at the limit (%+v):\n%s", res, out)
			}
			assertNoJailLeft(t)
		})
	}
	t.Run("shell fork bomb", func(t *testing.T) {
		o := e.options(jailModes[0], "/bin/sh", "-c", "b() { b | b & }; b; sleep 1")
		o.Limits = Limits{Pids: 64}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		res, err := Run(ctx, o)
		if err != nil && ctx.Err() == nil {
			t.Fatal(err)
		}
		if !res.PidsLimit {
			t.Errorf("the bomb never reached the pids limit: %+v", res)
		}
		assertNoJailLeft(t)
	})
}

func TestJailMemoryLimit(t *testing.T) {
	e := newJailEnv(t)
	o := e.options(jailModes[0], e.probeArgv("alloc", "2048")...)
	o.Limits = Limits{MemoryBytes: 256 << 20}
	out, res := runJailed(t, o)
	if res.Signal != int(syscall.SIGKILL) || !res.OOMKilled || strings.Contains(out, "allocated") {
		t.Fatalf("2 GiB under 256 MiB was not OOM-killed: %+v\n%s", res, out)
	}
	// the jail's init survived the OOM kill and reported the status
	if res.Code != 128+int(syscall.SIGKILL) {
		t.Errorf("exit code %d", res.Code)
	}
	assertNoJailLeft(t)
}

// TestJailSupervisorKilled kills a re-executed supervisor with SIGKILL
// while its jail runs a process tree; nothing of the jail may survive.
func TestJailSupervisorKilled(t *testing.T) {
	e := newJailEnv(t)
	for _, m := range jailModes[:1] { // without a pid namespace this is the documented gap
		t.Run(m.name, func(t *testing.T) {
			marker := filepath.Join(e.project.Root, "started")
			cmd := supervisorCmd(t, supervisorJob{Project: e.project.Root,
				Argv: e.probeArgv("sleep", marker), Disable: m.disable, Allow: m.disable})
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			testenv.WaitFor(t, marker, func() bool { _, err := os.Stat(marker); return err == nil })
			jailed := jailPids(cmd.Process.Pid)
			if len(jailed) < 3 { // init, probe, sleep
				t.Fatalf("found %d jailed processes: %v", len(jailed), jailed)
			}
			cmd.Process.Kill()
			cmd.Wait()
			testenv.WaitFor(t, "the jailed processes to be gone", func() bool { return len(alive(jailed)) == 0 })
		})
	}
}

func supervisorCmd(t *testing.T, job supervisorJob) *exec.Cmd {
	t.Helper()
	raw, err := jsonMarshal(job)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), supervisorEnv+"="+raw)
	return cmd
}
