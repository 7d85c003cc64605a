//go:build unix

package queue

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting. It reports false
// when another open file description holds it. The kernel drops the lock
// when the holder dies, which is how a dead approver is detected.
func tryLock(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// lockBlocking takes an exclusive flock on f, waiting for it.
func lockBlocking(f *os.File) error { return flock(f, syscall.LOCK_EX) }

func unlock(f *os.File) error { return flock(f, syscall.LOCK_UN) }

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// oNoFollow is O_NOFOLLOW for os.OpenFile.
const oNoFollow = syscall.O_NOFOLLOW

// openLockFile opens (creating it if create) a lock file read-write without following
// a link.
func openLockFile(path string, create bool) (*os.File, error) {
	flags := syscall.O_RDWR | syscall.O_NOFOLLOW | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	if create {
		flags |= syscall.O_CREAT
	}
	fd, err := syscall.Open(path, flags, 0o644)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
