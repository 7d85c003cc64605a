package audit

import (
	"fmt"
	"os"
	"time"
)

// fileLock serialises appends across processes: an exclusive lock for an
// append, a shared one for Verify's snapshot. The kernel drops it when
// its holder dies, so a crash never leaves the log locked.
type fileLock struct {
	f *os.File
}

func openLock(path string) (*fileLock, error) {
	f, err := openRegular(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &fileLock{f: f}, nil
}

// acquire takes the lock, polling (without holding any other lock) until
// timeout, so that a stopped holder cannot block an actor forever.
func (l *fileLock) acquire(exclusive bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	wait := 20 * time.Microsecond
	for {
		ok, err := tryLock(l.f, exclusive)
		if err != nil {
			return fmt.Errorf("audit lock %s: %w", l.f.Name(), err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %w after %v", l.f.Name(), ErrLockTimeout, timeout)
		}
		time.Sleep(wait)
		wait = min(2*wait, 2*time.Millisecond)
	}
}

func (l *fileLock) release() error {
	if err := unlock(l.f); err != nil {
		return fmt.Errorf("audit unlock %s: %w", l.f.Name(), err)
	}
	return nil
}

func (l *fileLock) close() error { return l.f.Close() }
