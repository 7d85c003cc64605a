package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Bounds of the store's lock. Parallel tool calls checkpoint one after
// the other (each takes milliseconds once the stat cache is warm); a
// lock older than lockStale was left by a crash.
const (
	lockPause = 10 * time.Millisecond
	lockWait  = 30 * time.Second
	lockStale = 2 * time.Minute
)

// withLock runs fn holding the store's lock, an exclusively created file
// (portable, and enough between processes of one user).
func (s *Store) withLock(fn func() error) error {
	if err := s.init(); err != nil {
		return err
	}
	lock := filepath.Join(s.dir, "lock")
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			defer os.Remove(lock)
			return fn()
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("checkpoint: lock: %w", err)
		}
		if fi, serr := os.Lstat(lock); serr == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("checkpoint: %s: %w", lock, ErrLocked)
		}
		time.Sleep(lockPause)
	}
}
