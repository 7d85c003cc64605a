//go:build linux

package broker

import (
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens dirs below base in one openat2 call that refuses every
// symbolic link (and, inside root, any escape from base). It returns
// ENOSYS where openat2 is missing or filtered, so the caller walks instead.
func openBeneath(base int, dirs []string, inside bool) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	if inside {
		how.Resolve |= unix.RESOLVE_BENEATH
	}
	for range 8 {
		fd, err := unix.Openat2(base, strings.Join(dirs, "/"), &how)
		switch err {
		case nil:
			return fd, nil
		case unix.EINTR, unix.EAGAIN:
			continue
		case unix.ENOSYS, unix.EPERM, unix.EINVAL, unix.E2BIG:
			return -1, unix.ENOSYS
		}
		return -1, err
	}
	return -1, unix.ENOSYS // kept racing with renames: walk instead
}
