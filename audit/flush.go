package audit

import (
	"fmt"
	"os"
	"time"
)

// syncState tracks durability by position: bytes this Log has written,
// across files, in order. Concurrent appenders wait for one group sync
// (fdatasync outside every lock) that covers their position.
type syncState struct {
	written int64      // bytes written so far
	durable int64      // bytes known to be on disk
	leading bool       // a leader is in fdatasync without mu
	failed  int64      // positions up to this one failed to sync ...
	err     error      // ... with this error
	retired []*os.File // replaced files to close once the leader is done
}

func (s *syncState) pending() bool { return s.written > s.durable }

// afterWrite applies the durability policy to the bytes up to pos: wait
// for a group sync (SyncEach) or leave it to the timer (SyncBatch); anchor
// the head at most once per interval inline, otherwise from a timer.
func (l *Log) afterWrite(pos int64) error {
	if l.opts.durability == SyncEach {
		if err := l.waitDurable(pos); err != nil || l.closed {
			return err // closed meanwhile: Close synced and anchored
		}
	}
	if time.Since(l.lastFlush) >= l.opts.interval {
		return l.withLock(l.flushLocked)
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(l.opts.interval, l.background)
	}
	return nil
}

// waitDurable returns once position pos is on disk. The first waiter
// becomes the leader: it syncs everything written so far with mu
// released, so that appenders arriving meanwhile join the next group.
// mu is held on entry and exit; the cross-process lock must not be.
func (l *Log) waitDurable(pos int64) error {
	for l.sync.durable < pos {
		switch {
		case l.sync.failed >= pos:
			return l.sync.err
		case l.sync.leading:
			l.cond.Wait()
			continue
		case l.closed || l.file == nil:
			return ErrClosed
		}
		l.lead()
	}
	return nil
}

func (l *Log) lead() {
	target, f := l.sync.written, l.file
	l.sync.leading = true
	l.mu.Unlock()
	err := datasync(f)
	l.mu.Lock()
	l.sync.leading = false
	if err != nil {
		l.sync.failed, l.sync.err = target, fmt.Errorf("sync %s: %w", l.path, err)
		l.known = false
	} else {
		l.sync.durable = max(l.sync.durable, target)
	}
	for _, old := range l.sync.retired {
		old.Close()
	}
	l.sync.retired = nil
	l.cond.Broadcast()
}

// syncNow syncs inline (with mu and, usually, the lock held).
func (l *Log) syncNow() error {
	if !l.sync.pending() {
		return nil
	}
	target := l.sync.written
	if err := datasync(l.file); err != nil {
		l.known = false
		return fmt.Errorf("sync %s: %w", l.path, err)
	}
	l.sync.durable = max(l.sync.durable, target)
	return nil
}

// retire stops using the current file (deleted or replaced): what was
// written to it is synced first, and it is closed once no leader uses it.
func (l *Log) retire() error {
	if err := l.syncNow(); err != nil {
		return err
	}
	if l.sync.leading {
		l.sync.retired = append(l.sync.retired, l.file)
	} else {
		l.file.Close()
	}
	l.file, l.known = nil, false
	return nil
}

// flushLocked syncs the log, then anchors the head, in that order, so the
// anchor never gets ahead of what is on disk. The lock must be held.
func (l *Log) flushLocked() error {
	if err := l.syncNow(); err != nil {
		return err
	}
	l.lastFlush = time.Now()
	if l.badAnchor || !l.known || l.head.seq <= l.anchored {
		return nil
	}
	cur, ok, err := l.anchors.read()
	if err != nil {
		l.badAnchor = true // keep it: Verify reports it
		l.opts.logger.Warn("audit: anchor unreadable, left as is", "err", err)
		return nil
	}
	if ok && cur.seq >= l.head.seq {
		l.anchored = cur.seq
		return nil
	}
	if err := l.anchors.write(l.head); err != nil {
		return err
	}
	l.anchored = l.head.seq
	return nil
}

// background is the timer's flush; a failure is retried by the next Append,
// which refuses its action if the retry fails too.
func (l *Log) background() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	if l.closed {
		return
	}
	if err := l.withLock(l.flushLocked); err != nil {
		l.flushErr = err
		l.opts.logger.Warn("audit: background flush failed", "err", err)
	}
}
