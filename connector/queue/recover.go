package queue

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleAge is how old a leftover tmp/ file, stale gate or dead waiter
// registration must be before Recover removes it.
const staleAge = 10 * time.Minute

// maxClockSkew: a request created further in the future than this is
// treated as expired (a writer cannot dodge expiry with a future time).
const maxClockSkew = 5 * time.Minute

// Recover repairs what crashed processes left behind. A claimed request
// whose approver is gone (its lock is free) is completed as
// `interrupted` (or `denied` if a deny had won its gate) and is never run
// again by itself. Pending requests older than the expiry become
// `expired`. Leftover tmp/ files, stale gates, dead waiter registrations
// and old join index entries are removed. Bad files are quarantined and
// returned as problems. Pending and List do the same; approvers may call
// it periodically.
func (q *Queue) Recover() []Problem {
	problems := q.recoverClaimed()
	reqs, more := q.scan(StatePending)
	q.expire(reqs)
	return append(problems, more...)
}

// expire completes the expired ones of reqs (just read from pending/) as
// `expired`, and tidies up under the bus lock. It returns the others.
func (q *Queue) expire(reqs []*Request) []*Request {
	unlock, err := q.lockBus(context.Background())
	if err != nil {
		q.log.Warn("expiry", "err", err)
		return reqs
	}
	defer unlock()
	kept := reqs[:0:0]
	for _, r := range reqs {
		if !q.expired(r) {
			kept = append(kept, r)
		} else if c, err := q.Claim(r.ID); err == nil {
			c.Complete(&Result{Decision: Expired, Approver: Approver{User: LocalUser(), Surface: "expiry"},
				Reason: "nobody decided within " + q.expiry.String()})
		}
	}
	q.sweepWaiters()
	q.compactJoins()
	q.sweep(q.tmp, staleAge)
	q.sweep(q.f.Staging(), staleAge)
	return kept
}

func (q *Queue) recoverClaimed() []Problem {
	names, err := readNames(q.f.Claimed())
	if err != nil {
		return []Problem{{State: StateClaimed, Name: ".", Err: err}}
	}
	var problems []Problem
	for _, name := range names {
		path := filepath.Join(q.f.Claimed(), name)
		if id := idFromName(name); id != "" {
			if err := q.recoverOne(id); err != nil && !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, q.problem(StateClaimed, path, err))
			}
			continue
		}
		if id, ok := strings.CutSuffix(name, ".gate"); ok && ValidID(id) {
			q.removeStaleGate(id)
			continue
		}
		problems = append(problems, q.problem(StateClaimed, path, badFile("not a request file name")))
	}
	return problems
}

// recoverOne completes claimed/ID.json if its approver is dead.
func (q *Queue) recoverOne(id string) error {
	f, err := openChecked(q.path(StateClaimed, id))
	if err != nil {
		return err
	}
	c := &Claim{q: q, id: id, f: f}
	if ok, err := tryLock(f); !ok || err != nil {
		f.Close() // alive: its approver holds the lock
		return err
	}
	if _, err := os.Lstat(q.path(StateDone, id)); err == nil {
		os.Remove(q.path(StateClaimed, id)) // completed just before dying
		os.Remove(q.gatePath(id))
		c.close()
		return nil
	}
	if err := c.load(); err != nil {
		c.close()
		return err
	}
	return c.Complete(q.interruptedResult(id))
}

func (q *Queue) interruptedResult(id string) *Result {
	note, running := q.readGate(id)
	if _, err := os.Lstat(q.gatePath(id)); err == nil && !running {
		return note.result()
	}
	res := &Result{Decision: Interrupted, Approver: Approver{User: LocalUser(), Surface: "recovery"},
		Reason: "the approver stopped (crashed or was killed) after claiming it; it is not run again"}
	if running {
		res.Reason = "the approver stopped (crashed or was killed) while running it; it is not run again"
		if _, err := os.Lstat(q.f.ResultLog(id)); err == nil {
			res.LogPath = q.f.ResultLog(id)
		}
	}
	return res
}

// expireLocked expires old pending requests (a full queue makes room).
// Called with the bus lock held.
func (q *Queue) expireLocked() {
	reqs, _ := q.scan(StatePending)
	for _, r := range reqs {
		if !q.expired(r) {
			continue
		}
		if c, err := q.Claim(r.ID); err == nil {
			c.Complete(&Result{Decision: Expired, Approver: Approver{User: LocalUser(), Surface: "expiry"},
				Reason: "nobody decided within " + q.expiry.String()})
		}
	}
}

func (q *Queue) expired(r *Request) bool {
	a := q.age(r.Created)
	return a > q.expiry || a < -maxClockSkew
}

func (q *Queue) removeStaleGate(id string) {
	if _, err := os.Lstat(q.path(StateClaimed, id)); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if fi, err := os.Lstat(q.gatePath(id)); err == nil && q.age(fi.ModTime()) > staleAge {
		os.Remove(q.gatePath(id))
	}
}

// sweep removes the files of dir older than maxAge.
func (q *Queue) sweep(dir string, maxAge time.Duration) {
	names, err := readNames(dir)
	if err != nil {
		return
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() && q.age(fi.ModTime()) > maxAge {
			os.Remove(p)
		}
	}
}
