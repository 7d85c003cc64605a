package queue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// joinIndexCompact is the size beyond which Recover rewrites the join
// index, keeping only the entries that can still be joined.
const joinIndexCompact = 64 << 10

// busLockWait bounds how long a call without its own deadline waits for
// the bus lock (a process holding it forever must not hang the others).
const busLockWait = 10 * time.Second

// lockBus takes the folder-wide bus lock (escalations/joins/.lock) that
// serialises the short decisions that must not interleave: Submit's
// join-or-create and limit check, a waiter's withdrawal, expiry. It is
// never held across a human decision or an execution. It gives up when
// ctx ends, or after busLockWait if ctx has no deadline.
//
// It waits in the kernel's queue of the lock (a blocking flock or
// LockFileEx), not by retrying: a poller sleeping between tries loses to
// every process that asks while it sleeps, and under twenty writers one
// starved past its deadline.
func (q *Queue) lockBus(ctx context.Context) (unlockFn func(), err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, busLockWait)
		defer cancel()
	}
	f, err := openLockFile(filepath.Join(q.joinsDir(), ".lock"), true)
	if err != nil {
		return nil, fmt.Errorf("bus lock: %w", err)
	}
	if ok, err := tryLock(f); ok || err != nil { // the common case costs no goroutine
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("bus lock: %w", err)
		}
		return func() { unlock(f); f.Close() }, nil
	}
	if err := lockWait(ctx, f); err != nil {
		return nil, fmt.Errorf("bus lock: %w", err)
	}
	return func() { unlock(f); f.Close() }, nil
}

// lockWait takes an exclusive lock on f, waiting in the kernel until it
// is free or ctx ends. On success the caller owns f and the lock. On
// failure f is no longer the caller's: a wait the kernel cannot be told to
// abandon goes on in the background and lets go of the lock and the file
// as soon as it gets them.
func lockWait(ctx context.Context, f *os.File) error {
	got := make(chan error, 1)
	go func() { got <- lockBlocking(f) }()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
		}
		return err
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				unlock(f)
			}
			f.Close()
		}()
		return ctx.Err()
	}
}

// joinKey names a (hash, session) pair in the join index.
func joinKey(hash, session string) string {
	sum := sha256.Sum256([]byte(hash + "\x00" + session))
	return hex.EncodeToString(sum[:])
}

func (q *Queue) joinIndex() string { return filepath.Join(q.joinsDir(), "index") }

// findJoin returns the id of a joinable request for (hash, session), or
// "". The index (lines "KEY ID", appended) is only a hint: the request or
// result it points to is read and must carry the same hash and session.
// Called with the bus lock held.
func (q *Queue) findJoin(key, hash, session string) string {
	raw, err := readChecked(q.joinIndex())
	if err != nil {
		return ""
	}
	id := lastEntry(raw, key)
	if id == "" {
		return ""
	}
	for _, s := range []State{StatePending, StateClaimed} {
		if r, err := q.readRequest(s, id); err == nil {
			if r.Hash == hash && r.Session == session {
				return id
			}
			return ""
		}
	}
	res, err := q.readResult(id)
	if err != nil || res.RequestHash != hash || res.Session != session || !q.joinable(res) {
		return ""
	}
	return id
}

// lastEntry returns the id of the last index line for key.
func lastEntry(raw []byte, key string) string {
	prefix := []byte(key + " ")
	for len(raw) > 0 {
		i := bytes.LastIndexByte(raw[:len(raw)-1], '\n') + 1
		line := bytes.TrimSuffix(raw[i:], []byte("\n"))
		if id, ok := bytes.CutPrefix(line, prefix); ok && ValidID(string(id)) {
			return string(id)
		}
		raw = raw[:i]
	}
	return ""
}

// joinable: a finished request is joined only if a human (or a rule)
// decided it, within the join window. Withdrawn, expired and interrupted
// ones are asked again.
func (q *Queue) joinable(res *Result) bool {
	if res.Decision != Approved && res.Decision != Denied && res.Decision != Failed {
		return false
	}
	ended := res.Decided
	if res.Finished.After(ended) {
		ended = res.Finished
	}
	return q.age(ended) <= q.joinWindow
}

// addJoin appends "KEY ID" to the index. Best effort and not fsynced: a
// lost entry only means the next identical request asks the human again.
// Called with the bus lock held.
func (q *Queue) addJoin(key, id string) {
	f, err := os.OpenFile(q.joinIndex(), os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		q.log.Warn("join index", "err", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(key + " " + id + "\n"); err != nil {
		q.log.Warn("join index", "err", err)
	}
}

// compactJoins rewrites a large index with the entries that can still be
// joined. Called with the bus lock held.
func (q *Queue) compactJoins() {
	fi, err := os.Lstat(q.joinIndex())
	if err != nil || fi.Size() < joinIndexCompact {
		return
	}
	raw, err := readChecked(q.joinIndex())
	if err != nil {
		os.Remove(q.joinIndex()) // unusable: start again
		return
	}
	var keep strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		if _, id, ok := strings.Cut(line, " "); ok && ValidID(id) && q.stillJoinable(id) {
			keep.WriteString(line + "\n")
		}
	}
	tmp := filepath.Join(q.f.Staging(), "joins-"+NewID())
	if err := writeNew(tmp, []byte(keep.String())); err == nil {
		if err := os.Rename(tmp, q.joinIndex()); err != nil {
			os.Remove(tmp)
		}
	}
}

func (q *Queue) stillJoinable(id string) bool {
	for _, s := range []State{StatePending, StateClaimed} {
		if _, err := os.Lstat(q.path(s, id)); err == nil {
			return true
		}
	}
	fi, err := os.Lstat(q.path(StateDone, id))
	return err == nil && q.age(fi.ModTime()) <= q.joinWindow
}
