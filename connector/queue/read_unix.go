//go:build unix

package queue

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens path read-only without following a final symlink and
// without blocking (a FIFO opens at once and is then rejected).
func openNoFollow(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// isHostile reports errors that mean the name is not a plain readable file
// of ours: a link (ELOOP), a permission problem, a special file.
func isHostile(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EACCES) ||
		errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.EPERM) ||
		errors.Is(err, syscall.EISDIR)
}

func linkCount(_ *os.File, fi os.FileInfo) (uint64, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("bug: no Stat_t for %s", fi.Name())
	}
	return uint64(st.Nlink), nil
}
