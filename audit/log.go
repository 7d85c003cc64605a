package audit

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// lockFile serialises appends; it is not a *.jsonl file, so readers skip it.
const lockFile = "audit.lock"

// Log appends records to one folder's audit log. It is safe for concurrent
// use, and other processes may append to the same log at the same time.
type Log struct {
	path    string // the live file
	anchors *anchorStore
	lock    *fileLock
	opts    options

	mu sync.Mutex
	// guarded by mu:
	cond      *sync.Cond // on mu: a group sync finished
	sig       *signer
	file      *os.File // the live file, O_RDWR|O_APPEND; nil until the first append
	end       int64    // offset just after the last line this process knows
	head      point    // the newest head this process trusts
	haveHead  bool     // head is set
	known     bool     // end and head describe file as it is on disk
	anchored  uint64   // the highest seq known to be anchored
	badAnchor bool     // the anchor is corrupt: never overwrite it (evidence)
	sync      syncState
	lastFlush time.Time // last datasync + anchor
	timer     *time.Timer
	flushErr  error // a background flush failure, retried by the next Append
	closed    bool
}

// Open prepares appending to f's audit log with the per-user key and anchor
// in st. It creates the audit dir (Dir) when missing; the log itself is read
// and created under the lock at the first Append.
func Open(f folder.Folder, st *userstate.State, opts ...Option) (*Log, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if !f.Exists() {
		return nil, fmt.Errorf("%s: %w", f.Root, folder.ErrNotFound)
	}
	anchors, err := newAnchorStore(st, f.Root)
	if err != nil {
		return nil, err
	}
	dir, err := Dir(f, st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAppend, err)
	}
	lock, err := openLock(filepath.Join(dir, lockFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAppend, err)
	}
	l := &Log{
		path: filepath.Join(dir, LiveFile), anchors: anchors, lock: lock,
		opts: o, sig: newSigner(st.Key),
	}
	l.cond = sync.NewCond(&l.mu)
	return l, nil
}

func ensureDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("audit dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("audit dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("audit dir %s is not a directory (%v)", dir, fi.Mode().Type())
	}
	return nil
}

// Append writes one record and returns it. Any error means the record is
// not (durably) in the log and the caller must refuse the action.
func (l *Log) Append(e Entry) (Record, error) {
	if err := validate(e); err != nil {
		return Record{}, err
	}
	detail, err := encodeDetail(e.Detail)
	if err != nil {
		return Record{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return Record{}, ErrClosed
	}
	var rec Record
	err = l.withLock(func() (err error) {
		rec, err = l.appendLocked(e, detail)
		return err
	})
	if err == nil && !l.closed {
		err = l.afterWrite(l.sync.written)
	}
	if err != nil {
		return Record{}, fmt.Errorf("%w: %w", ErrAppend, err)
	}
	return rec, nil
}

func (l *Log) appendLocked(e Entry, detail json.RawMessage) (Record, error) {
	if l.flushErr != nil {
		if err := l.flushLocked(); err != nil {
			return Record{}, err
		}
		l.flushErr = nil
	}
	if err := l.resolve(); err != nil {
		return Record{}, err
	}
	return l.writeEntry(nil, e, detail)
}

// writeEntry encodes e as the record after head and writes it, after lead
// (bytes that must land with it or not at all) when given.
func (l *Log) writeEntry(lead []byte, e Entry, detail json.RawMessage) (Record, error) {
	t := l.opts.now().UTC().Round(0)
	prev := l.head.link
	line, sum, err := l.sig.encode(prev.seq+1, t, e, detail, prev.hash)
	if err != nil {
		return Record{}, err
	}
	if lead != nil {
		line = append(lead, line...)
	}
	if err := l.writeLine(line); err != nil {
		return Record{}, err
	}
	l.head = point{link: link{seq: prev.seq + 1, hash: sum}, file: LiveFile, end: l.end}
	macEnd := len(line) - 1 - len(hmacSuffix) // line may start with lead; its end is the record's
	return Record{
		Seq: prev.seq + 1, Time: t, Actor: e.Actor, Event: e.Event, RequestID: e.RequestID,
		Decision: e.Decision, ContentHash: e.ContentHash, Detail: detail,
		Prev: hex.EncodeToString(prev.hash[:]), HMAC: string(line[macEnd-hexLen : macEnd]),
		Authentic: true,
	}, nil
}

// writeLine appends b in one write. A failed write's partial bytes were
// never a record; they are cut off again so they cannot pass for a crash.
func (l *Log) writeLine(b []byte) error {
	n, err := l.file.Write(b)
	if err == nil {
		l.end += int64(n)
		l.sync.written += int64(n)
		return nil
	}
	if n > 0 {
		if terr := l.file.Truncate(l.end); terr != nil {
			l.known = false
			l.opts.logger.Warn("audit: cannot cut off a failed partial write", "file", l.path, "err", terr)
		}
	}
	return fmt.Errorf("audit log: %w", err)
}

// withLock runs fn holding the cross-process lock.
func (l *Log) withLock(fn func() error) error {
	if err := l.lock.acquire(true, l.opts.lockTimeout); err != nil {
		return err
	}
	err := fn()
	if uerr := l.lock.release(); err == nil {
		err = uerr
	}
	return err
}

// Close syncs and anchors what this Log appended, then releases its files.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	for l.sync.leading {
		l.cond.Wait()
	}
	var err error
	if l.file != nil {
		if l.sync.pending() || (l.known && l.head.seq > l.anchored) {
			err = l.withLock(l.flushLocked)
		}
		if cerr := l.file.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := l.lock.close(); err == nil {
		err = cerr
	}
	return err
}
