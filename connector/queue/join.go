package queue

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lockBus takes the folder-wide bus lock (escalations/joins/.lock) that
// serialises the short decisions that must not interleave: Submit's
// join-or-create and limit check, a waiter's withdrawal, expiry. It is
// never held across a human decision or an execution.
func (q *Queue) lockBus() (unlockFn func(), err error) {
	f, err := openLockFile(filepath.Join(q.joinsDir(), ".lock"), true)
	if err != nil {
		return nil, fmt.Errorf("bus lock: %w", err)
	}
	if err := lockWait(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bus lock: %w", err)
	}
	return func() { unlock(f); f.Close() }, nil
}

// joinKey names the join index entry of a (hash, session) pair.
func joinKey(hash, session string) string {
	sum := sha256.Sum256([]byte(hash + "\x00" + session))
	return hex.EncodeToString(sum[:])
}

// findJoin returns the id of a joinable request for (hash, session), or
// "". The index entry is only a hint: the request or result it points to
// is read and must carry the same hash and session. Called with the bus
// lock held.
func (q *Queue) findJoin(key, hash, session string) string {
	raw, err := readChecked(filepath.Join(q.joinsDir(), key))
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(raw))
	if !ValidID(id) {
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
	if err != nil || res.RequestHash != hash || res.Session != session {
		return ""
	}
	ended := res.Decided
	if res.Finished.After(ended) {
		ended = res.Finished
	}
	if !joinableDecision(res.Decision) || q.now().Sub(ended) > q.joinWindow {
		return ""
	}
	return id
}

// joinableDecision: a finished request is joined only if a human (or a
// rule) decided it. Withdrawn, expired and interrupted ones are asked again.
func joinableDecision(d Decision) bool {
	return d == Approved || d == Denied || d == Failed
}

// writeJoin points the index entry key at id. Best effort: a lost entry
// only means the next identical request asks the human again.
func (q *Queue) writeJoin(key, id string) {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(q.joinsDir(), ".tmp-"+hex.EncodeToString(rnd[:]))
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o644); err != nil {
		q.log.Warn("join index", "err", err)
		return
	}
	if err := os.Rename(tmp, filepath.Join(q.joinsDir(), key)); err != nil {
		os.Remove(tmp)
		q.log.Warn("join index", "err", err)
	}
}
