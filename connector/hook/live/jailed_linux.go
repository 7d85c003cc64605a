//go:build linux

package live

import "syscall"

// prGetNoNewPrivs is PR_GET_NO_NEW_PRIVS (linux/prctl.h).
const prGetNoNewPrivs = 39

// restricted reports whether this process runs with no_new_privs, which
// `sandbox run`'s jail sets and nothing can clear: the agent that started
// the hook was itself started restricted. A hostile agent outside any jail
// cannot set it on the agent's own process (its commands are its
// children), so it cannot make a hook believe it is jailed.
func restricted() bool {
	r, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetNoNewPrivs, 0, 0)
	return errno == 0 && r == 1
}
