package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Bounds of the lock that serialises read-modify-write of a state file.
const (
	lockTries = 250
	lockPause = 20 * time.Millisecond
	lockStale = 30 * time.Second
)

var errLocked = errors.New("state file is locked by another process")

// withLock runs fn while holding path+".lock", an exclusively created
// file. A lock older than lockStale is taken to be left by a crash. It
// gives up after about lockTries*lockPause.
func withLock(path string, fn func() error) error {
	lock := path + ".lock"
	for try := 0; ; try++ {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			defer os.Remove(lock)
			return fn()
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("lock %s: %w", lock, err)
		}
		if fi, serr := os.Lstat(lock); serr == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(lock)
			continue
		}
		if try >= lockTries {
			return fmt.Errorf("%s: %w", lock, errLocked)
		}
		time.Sleep(lockPause)
	}
}
