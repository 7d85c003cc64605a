//go:build !windows

package gitworktree

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a final link;
// O_NONBLOCK keeps a FIFO planted there from blocking the open.
func openNoFollow(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
