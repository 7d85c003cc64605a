//go:build unix

package broker

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// cloexecInherited marks every descriptor above stderr close-on-exec, so
// that an approved command gets its three streams and nothing else. Go
// opens its own descriptors close-on-exec, but the approver's parent may
// have started it with more (a shell's or an IDE's open files, a socket):
// without this they would reach the command, which could read them through
// /proc/self/fd/N. Marking is harmless to the descriptors Go passes on
// purpose (exec.Cmd's ExtraFiles are dup'ed in the child) and idempotent,
// so it runs before every start instead of once.
func cloexecInherited() {
	if closeRangeCloexec() == nil {
		return
	}
	dir := "/dev/fd"
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		dir = "/proc/self/fd"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // nothing to list them with; exec.Cmd still passes only its own
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
