//go:build unix

package folder

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// HoldApprover marks f as watched until release is called (or the process
// ends: the kernel drops the lock with the last descriptor). Any number of
// approvers hold it at once.
func (f Folder) HoldApprover() (release func(), err error) {
	fd, err := unix.Open(f.ApproverLock(), unix.O_RDONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("approver lock: %w", err)
	}
	if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("approver lock: %w", err)
	}
	return func() { unix.Close(fd) }, nil
}

// ApproverWatching tests the lock without waiting: an exclusive lock that
// cannot be had means some approver holds its shared one.
func (f Folder) ApproverWatching() Presence {
	fd, err := unix.Open(f.ApproverLock(), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, os.ErrNotExist) {
		return PresenceNobody // no approver has ever run here
	}
	if err != nil {
		return PresenceUnknown
	}
	defer unix.Close(fd)
	switch err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); {
	case err == nil:
		return PresenceNobody // released as fd closes
	case errors.Is(err, unix.EWOULDBLOCK):
		return PresenceWatching
	}
	return PresenceUnknown
}
