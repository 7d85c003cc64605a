//go:build linux

package broker

import (
	"errors"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until the leader has exited without reaping it, so that
// its pid, which is also the group id, stays reserved until killGroup has run.
func (p *proc) awaitExit() {
	defer close(p.exited)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return // any other error: reap tells what happened
		}
	}
}
