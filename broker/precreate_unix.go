//go:build unix

package broker

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// precreate creates, empty, each granted write target that does not exist
// yet, so that the grant jail can make that one file writable: Landlock
// grants names that exist, and granting the directory instead would let
// the command write every file in it (a new file in ~ would open ~/.bashrc).
// A target whose directory is missing is left alone (the command fails
// there). No link is followed on the way (see ApplyWrite).
func precreate(paths []string) error {
	for _, p := range paths {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		t, err := locate("/", p)
		if err != nil {
			return fmt.Errorf("broker: granted write %s: %w", p, err)
		}
		dirfd, err := t.openParent(false)
		if err != nil {
			continue // no directory to create it in
		}
		fd, err := unix.Openat(dirfd, t.name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, NewFileMode)
		if err == nil {
			if os.Geteuid() == 0 {
				keepOwner(dirfd, fd, fileInfo{})
			}
			unix.Close(fd)
		}
		unix.Close(dirfd)
		if err != nil && !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("broker: granted write %s: %w", p, err)
		}
	}
	return nil
}
