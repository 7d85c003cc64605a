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
	f    *os.File // nil once a timed-out wait kept it and no other could be opened
	path string
	flag int // to open the file again
}

func openLock(path string) (*fileLock, error) {
	return openLockFlag(path, os.O_RDWR|os.O_CREATE)
}

func openLockFlag(path string, flag int) (*fileLock, error) {
	f, err := openRegular(path, flag, 0o600)
	if err != nil {
		return nil, err
	}
	return &fileLock{f: f, path: path, flag: flag}, nil
}

// acquire takes the lock, giving up after timeout so that a stopped
// holder cannot block an actor forever. It waits in the kernel's queue of
// the lock (a blocking flock or LockFileEx), not by retrying: a poller
// sleeping between tries loses to every process that asks meanwhile, and
// under many writers starves past its deadline.
func (l *fileLock) acquire(exclusive bool, timeout time.Duration) error {
	if l.f == nil {
		return fmt.Errorf("audit lock %s: lost after an earlier timeout", l.path)
	}
	ok, err := tryLock(l.f, exclusive)
	if err != nil {
		return fmt.Errorf("audit lock %s: %w", l.path, err)
	}
	if ok { // the common case costs no goroutine
		return nil
	}
	f, got := l.f, make(chan error, 1)
	go func() { got <- lockBlocking(f, exclusive) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-got:
		if err != nil {
			return fmt.Errorf("audit lock %s: %w", l.path, err)
		}
		return nil
	case <-t.C:
	}
	// The kernel cannot be told to abandon the wait: it goes on with f in
	// the background, letting go of the lock and the file once it has
	// them, and this lock takes a file of its own (a lock shares its open
	// file's fate, so f must never be unlocked by both).
	go func() {
		if <-got == nil {
			unlock(f)
		}
		f.Close()
	}()
	l.f = nil
	if nl, err := openLockFlag(l.path, l.flag); err == nil {
		l.f = nl.f
	}
	return fmt.Errorf("%s: %w after %v", l.path, ErrLockTimeout, timeout)
}

func (l *fileLock) release() error {
	if err := unlock(l.f); err != nil {
		return fmt.Errorf("audit unlock %s: %w", l.path, err)
	}
	return nil
}

func (l *fileLock) close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
