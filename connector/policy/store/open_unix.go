//go:build !windows

package store

import (
	"os"
	"syscall"
)

// openRegular opens path for reading without following a final symbolic
// link. os.Open would first try to register the descriptor with the
// runtime's poller, which a regular file refuses (a few wasted system
// calls on every hook and shim start); a descriptor made by os.NewFile
// from a blocking fd is never registered.
func openRegular(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
