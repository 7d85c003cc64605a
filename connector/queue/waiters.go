package queue

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A waiter is one submitter's claim to be waiting for a request: the file
// waiters/ID/RANDOM.lock, locked for as long as the submitter lives and
// waits. A submitter that gives up may withdraw the request only if no
// other live waiter remains (see docs/QUEUE.md, "Withdraw").
type waiter struct {
	id   string
	path string
	f    *os.File
}

// addWaiter registers a live waiter for id and remembers it for Wait.
// Called with the bus lock held.
func (q *Queue) addWaiter(id string) error {
	dir := filepath.Join(q.waitersDir(), id)
	if err := ensureDir(dir); err != nil {
		return fmt.Errorf("register waiter: %w", err)
	}
	var rnd [10]byte
	rand.Read(rnd[:])
	path := filepath.Join(dir, hex.EncodeToString(rnd[:])+".lock")
	f, err := openLockFile(path, true)
	if err != nil {
		return fmt.Errorf("register waiter: %w", err)
	}
	if ok, err := tryLock(f); !ok {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("register waiter: lock %s: %v", path, err)
	}
	q.mu.Lock()
	q.waiters[id] = append(q.waiters[id], &waiter{id: id, path: path, f: f})
	q.mu.Unlock()
	return nil
}

// takeWaiter hands one registration for id to a Wait call, or nil.
func (q *Queue) takeWaiter(id string) *waiter {
	q.mu.Lock()
	defer q.mu.Unlock()
	ws := q.waiters[id]
	if len(ws) == 0 {
		return nil
	}
	w := ws[len(ws)-1]
	if len(ws) == 1 {
		delete(q.waiters, id)
	} else {
		q.waiters[id] = ws[:len(ws)-1]
	}
	return w
}

// release drops the registration: remove the file, then unlock.
func (w *waiter) release() {
	if w == nil || w.f == nil {
		return
	}
	os.Remove(w.path)
	unlock(w.f)
	w.f.Close()
	w.f = nil
}

// liveWaiters counts the other registered waiters of id that are still
// alive, removing the registrations of dead ones. Called with the bus lock
// held.
func (q *Queue) liveWaiters(id string) (int, error) {
	dir := filepath.Join(q.waitersDir(), id)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("waiters of %s: %w", id, err)
	}
	live := 0
	for _, e := range entries {
		if alive(filepath.Join(dir, e.Name())) {
			live++
		}
	}
	return live, nil
}

// alive reports whether a waiter's lock file is held; a free one belongs
// to a dead process and is removed. Anything odd counts as alive (the
// cautious answer: the request is then not withdrawn).
func alive(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return err == nil
	}
	f, err := openLockFile(path, false)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	ok, err := tryLock(f)
	if err != nil || !ok {
		return true
	}
	os.Remove(path)
	unlock(f)
	return false
}
