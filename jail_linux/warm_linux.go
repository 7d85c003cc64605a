//go:build linux

package jail_linux

import "os"

// warmPidfd makes os/exec's one-time check that pidfds work (pidfd_open,
// waitid, pidfd_send_signal and a throw-away clone(CLONE_PIDFD) child)
// happen now, in the background, rather than inside the init's start.
// It holds nothing afterwards: the pidfd of this process is released.
func warmPidfd() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Release()
	}
}
