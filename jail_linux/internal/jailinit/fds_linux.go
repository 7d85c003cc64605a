//go:build linux

package jailinit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloexecInherited marks every descriptor above stderr close-on-exec in
// the supervisor, once, before its first jail: `sandbox run` inherits
// whatever the shell or IDE that started it left open (a file on the
// per-user key, a D-Bus socket), and fork+exec hands every descriptor
// without the flag to the child. Go opens its own descriptors with the
// flag already, and os/exec clears it again on the ones a child is given
// on purpose, so setting it on all of them loses nothing.
func CloexecInherited() error {
	err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	return eachFD(func(fd int) { unix.CloseOnExec(fd) }) // kernels before 5.11
}

// closeInherited closes, in the init, every descriptor above the control
// socket that came through its execve: those are exactly the ones without
// close-on-exec (everything the init's own runtime opens has the flag).
// Marking them close-on-exec would keep the command from holding them,
// but the init itself would still hold them, and its /proc/PID/fd is where
// a jailed process would look.
func closeInherited() error {
	return eachFD(func(fd int) {
		if fd <= ctlFD {
			return
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			_ = unix.Close(fd)
		}
	})
}

// eachFD calls f for every open descriptor above stderr (the directory's
// own descriptor included, which f leaves alone: it is close-on-exec).
func eachFD(f func(fd int)) error {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list descriptors: %w", err)
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			f(fd)
		}
	}
	return nil
}

// undumpable makes the init's memory, descriptors, environment, root and
// working directory (/proc/PID/{mem,fd,environ,root,cwd}) unreachable to
// the jailed processes: a process that is not dumpable can be inspected
// only with CAP_SYS_PTRACE in its user namespace, which no jailed process
// holds. Without it the command, which runs as the same user with the same
// (dropped) capabilities as the init's main thread, could open them. The
// flag lives in the init's mm; the command's execve resets it for itself.
func undumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("not dumpable: %w", err)
	}
	return nil
}
