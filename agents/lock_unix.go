//go:build unix

package agents

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes flock(2) on f without blocking; false means another open
// file description holds it. Closing f releases it.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		}
		return err == nil, err
	}
}
