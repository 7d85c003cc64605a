package audit

import (
	"fmt"
	"time"
)

// afterWrite applies the durability policy once lines are written: sync
// now (SyncEach) or later (SyncBatch); anchor the head at most once per
// interval inline, and otherwise from a timer.
func (l *Log) afterWrite() error {
	if l.opts.durability == SyncEach {
		if err := l.sync(); err != nil {
			return err
		}
	}
	if time.Since(l.lastFlush) >= l.opts.interval {
		return l.flushLocked()
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(l.opts.interval, l.background)
	}
	return nil
}

func (l *Log) sync() error {
	if !l.unsynced {
		return nil
	}
	if err := datasync(l.file); err != nil {
		l.known = false
		return fmt.Errorf("sync %s: %w", l.path, err)
	}
	l.unsynced = false
	return nil
}

// flushLocked syncs the log, then anchors the head, in that order, so the
// anchor never gets ahead of what is on disk. The lock must be held.
func (l *Log) flushLocked() error {
	if err := l.sync(); err != nil {
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
