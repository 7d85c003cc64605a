package queue

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A waiter is one submitter waiting for a request. The submitter that
// created the request is implicit (no file: Submit stays cheap) and
// counts as alive until it gives up, which it records in waiters/ID.gone
// if others still wait. A submitter that joined registers
// waiters/ID.RANDOM.lock, locked for as long as it lives. A submitter
// that gives up withdraws the request only if no other waiter remains
// (see docs/QUEUE.md, "Waiting and withdrawal").
type waiter struct {
	id      string
	creator bool
	path    string   // joiners only
	f       *os.File // joiners only: the locked registration
}

// addWaiter remembers a waiter for id, registering a joiner's file.
// Called with the bus lock held.
func (q *Queue) addWaiter(id string, joined bool) error {
	w := &waiter{id: id, creator: !joined}
	if joined {
		var rnd [10]byte
		rand.Read(rnd[:])
		w.path = filepath.Join(q.waitersDir(), id+"."+hex.EncodeToString(rnd[:])+".lock")
		f, err := openLockFile(w.path, true)
		if err != nil {
			return fmt.Errorf("register waiter: %w", err)
		}
		if ok, err := tryLock(f); !ok {
			f.Close()
			os.Remove(w.path)
			return fmt.Errorf("register waiter: lock %s: %v", w.path, err)
		}
		w.f = f
	}
	q.mu.Lock()
	q.waiters[id] = append(q.waiters[id], w)
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

// release drops a joiner's registration: remove the file, then unlock.
func (w *waiter) release() {
	if w == nil || w.f == nil {
		return
	}
	os.Remove(w.path)
	unlock(w.f)
	w.f.Close()
	w.f = nil
}

// givesUp is called under the bus lock when w stops waiting without a
// result. It reports whether w was the last waiter, so that the request
// may be withdrawn; a creator leaving others behind records that it left.
func (q *Queue) givesUp(w *waiter) bool {
	w.release()
	joiners, err := q.liveJoiners(w.id)
	if err != nil {
		return false
	}
	if w.creator {
		if joiners > 0 {
			os.WriteFile(q.gonePath(w.id), nil, 0o644)
			return false
		}
		return true
	}
	_, err = os.Lstat(q.gonePath(w.id))
	creatorGone := err == nil
	return joiners == 0 && creatorGone
}

// gonePath records that the creator of id stopped waiting.
func (q *Queue) gonePath(id string) string {
	return filepath.Join(q.waitersDir(), id+".gone")
}

// liveJoiners counts the live joiner registrations of id, removing dead
// ones. Called with the bus lock held.
func (q *Queue) liveJoiners(id string) (int, error) {
	names, err := readNames(q.waitersDir())
	if err != nil {
		return 0, err
	}
	live := 0
	for _, n := range names {
		if strings.HasPrefix(n, id+".") && strings.HasSuffix(n, ".lock") &&
			alive(filepath.Join(q.waitersDir(), n)) {
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

// sweepWaiters removes dead joiner registrations and the gone-records of
// requests no longer pending or claimed. Called with the bus lock held.
func (q *Queue) sweepWaiters() {
	names, err := readNames(q.waitersDir())
	if err != nil {
		return
	}
	for _, n := range names {
		id, _, _ := strings.Cut(n, ".")
		p := filepath.Join(q.waitersDir(), n)
		switch {
		case strings.HasSuffix(n, ".lock"):
			alive(p)
		case strings.HasSuffix(n, ".gone") && !q.open(id):
			os.Remove(p)
		}
	}
}

// open reports whether id is pending or claimed.
func (q *Queue) open(id string) bool {
	for _, s := range []State{StatePending, StateClaimed} {
		if _, err := os.Lstat(q.path(s, id)); err == nil {
			return true
		}
	}
	return false
}
