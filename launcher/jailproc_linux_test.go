//go:build linux

package launcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestJailProcess(t *testing.T) {
	e := newJailEnv(t)
	sup := strconv.Itoa(os.Getpid())
	leak := filepath.Join(e.project.Root, "leaked")
	mustWrite(t, leak, "x")
	fd, err := syscall.Open(leak, syscall.O_RDONLY, 0) // no O_CLOEXEC: inherited by every child
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	tests := []struct {
		name  string
		probe string
		args  []string
		want  string // prefix of the probe's last line
	}{
		{"signal the supervisor", "kill0", []string{sup}, "err E"},
		{"ptrace the supervisor", "ptrace", []string{sup}, "err EPERM"},
		{"io_uring_setup", "iouring", nil, "err EPERM"},
		{"TIOCSTI on the controlling tty", "tiocsti", nil, "err EPERM"},
		{"TIOCSTI with high bits", "tiocsti", []string{"high"}, "err EPERM"},
		{"netlink socket", "netlink", nil, "err EPERM"},
		{"raw socket", "rawsock", nil, "err EPERM"},
		{"no inherited descriptors", "fds", []string{leak}, "ok"},
	}
	t.Run("control: unjailed the probes succeed", func(t *testing.T) {
		for _, probe := range []string{"iouring", "tiocsti", "netlink", "rawsock"} {
			cmd := exec.Command(e.probe, "probe", probe)
			cmd.Env = append(os.Environ(), probeEnv+"=1")
			out, err := cmd.Output()
			if got := strings.TrimSpace(string(out)); err != nil || got != "ok" {
				t.Errorf("unjailed %s: %q %v", probe, got, err)
			}
		}
	})
	cases := make([]probeCase, len(tests))
	for i, tc := range tests {
		cases[i] = probeCase{tc.name, tc.probe, tc.args}
	}
	cases = append(cases, probeCase{"status", "status", nil})
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			out, _ := runJailed(t, e.options(m, e.batchArgv(cases)...))
			got := batchResults(t, out, len(cases))
			for i, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					if !strings.HasPrefix(got[i], tc.want) {
						t.Errorf("%s: got %q, want %q...", tc.probe, got[i], tc.want)
					}
				})
			}
			for _, want := range []string{"NoNewPrivs: 1", "Seccomp: 2", "CapEff: 0000000000000000"} {
				if !strings.Contains(out, want) {
					t.Errorf("status lacks %q:\n%s", want, out)
				}
			}
			t.Run("unshare -Ur true", func(t *testing.T) {
				unshare, err := exec.LookPath("unshare")
				if err != nil {
					t.Skip("unshare(1) is not installed")
				}
				out, res := runJailed(t, e.options(m, unshare, "-Ur", "true"))
				if res.Code == 0 {
					t.Errorf("unshare -Ur true succeeded in the jail:\n%s", out)
				}
			})
		})
	}
}
