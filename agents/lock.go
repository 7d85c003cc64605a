package agents

import (
	"fmt"
	"os"
	"time"
)

// Lock is the hold of one agent's lock file. A spawn takes it, hands it
// to the supervisor it starts (an inherited descriptor shares the lock),
// and the supervisor holds it until it exits: the kernel drops it when
// the holder dies, however it dies, so a free lock means no supervisor.
type Lock struct {
	f *os.File
}

// Brief holds (List probing whether a supervisor lives) can collide with
// a spawn's attempt: retry for about lockTries*lockPause before ErrBusy.
const (
	lockTries = 10
	lockPause = 20 * time.Millisecond
)

// Lock takes name's lock without waiting for its holder: ErrBusy when a
// spawn or a supervisor of name holds it.
func (r *Registry) Lock(name string) (*Lock, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.AgentDir(name), 0o700); err != nil {
		return nil, fmt.Errorf("agent %s: %w", name, err)
	}
	f, err := os.OpenFile(r.LockPath(name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", name, err)
	}
	for try := 0; ; try++ {
		ok, err := tryLock(f, true)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("agent %s: lock: %w", name, err)
		}
		if ok {
			return &Lock{f: f}, nil
		}
		if try >= lockTries {
			f.Close()
			return nil, fmt.Errorf("%s: %w", name, ErrBusy)
		}
		time.Sleep(lockPause)
	}
}

// File is the locked file, to hand to a child that keeps the lock.
func (l *Lock) File() *os.File { return l.f }

// Release closes this process's descriptor; the lock is free once no
// descriptor of it is open anywhere.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// Held reports whether some process holds name's lock.
func (r *Registry) Held(name string) bool {
	f, err := os.Open(r.LockPath(name))
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLock(f, false)
	return err == nil && !ok
}
