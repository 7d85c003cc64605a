//go:build unix

package review

import (
	"errors"
	"syscall"
)

// held reports whether a waiter's lock file is locked by a live process
// (anything odd counts as held: the cautious answer is "someone waits").
func held(path string) bool {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return !errors.Is(err, syscall.ENOENT)
	}
	defer syscall.Close(fd)
	if err := syscall.Flock(fd, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(fd, syscall.LOCK_UN)
	return false
}
