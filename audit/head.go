package audit

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// resolve brings file, end and head up to date with the live file as it is
// now. The lock must be held. Lines other processes appended since are
// read forward from the last known end; a process that knows nothing yet
// starts from the anchored head and reads forward from it.
func (l *Log) resolve() error {
	if err := l.ensureFile(); err != nil {
		return err
	}
	fi, err := l.file.Stat()
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	size := fi.Size()
	switch {
	case l.known && size == l.end:
		return nil
	case l.known && size > l.end:
		return l.catchUp(size, false)
	}
	return l.recover(size)
}

// ensureFile opens the live file, again when it was deleted or replaced.
func (l *Log) ensureFile() error {
	if l.file != nil {
		cur, err1 := l.file.Stat()
		onDisk, err2 := os.Lstat(l.path)
		if err1 == nil && err2 == nil && os.SameFile(cur, onDisk) {
			return nil
		}
		l.opts.logger.Warn("audit: log file was deleted or replaced; continuing from the trusted head", "file", l.path)
		if err := l.retire(); err != nil {
			return err
		}
	}
	f, err := openRegular(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	l.file, l.known = f, false
	return nil
}

// recover finds the head when this process knows nothing about the file
// as it is: the newer of the anchor and its own last head is trusted. If
// the file still holds that record where it was, the lines after it are
// read forward; otherwise (truncated, rewritten, replaced) the chain goes
// on from the trusted head and Verify shows the break.
func (l *Log) recover(size int64) error {
	base, ok, err := l.trustedPoint()
	if err != nil {
		return err
	}
	if !ok {
		l.head, l.end = point{}, 0
		return l.catchUp(size, true)
	}
	l.head, l.haveHead = base, true
	if l.pointHolds(base, size) {
		l.end = base.end
		return l.catchUp(size, false)
	}
	l.opts.logger.Warn("audit: log does not continue its anchored head; continuing from it",
		"file", l.path, "seq", base.seq)
	l.end, l.known = size, true
	return l.terminate(size)
}

// trustedPoint is the newer of the anchored head and this process's own.
func (l *Log) trustedPoint() (point, bool, error) {
	a, ok, err := l.anchors.read()
	if errors.Is(err, ErrBadAnchor) {
		l.opts.logger.Warn("audit: anchor is corrupt; left as evidence", "err", err)
		l.badAnchor, ok, err = true, false, nil
	}
	if err != nil {
		return point{}, false, err
	}
	if ok && a.seq > l.anchored {
		l.anchored = a.seq
	}
	if l.haveHead && (!ok || l.head.seq > a.seq) {
		return l.head, true, nil
	}
	return a, ok, nil
}

// pointHolds reports whether the line ending at p.end is p's record.
func (l *Log) pointHolds(p point, size int64) bool {
	if p.file != LiveFile || p.end < 1 || p.end > size {
		return false
	}
	start := max(0, p.end-MaxLine-1)
	buf := make([]byte, p.end-start)
	if _, err := l.file.ReadAt(buf, start); err != nil || buf[len(buf)-1] != '\n' {
		return false
	}
	line := buf[:len(buf)-1]
	if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	} else if start > 0 {
		return false
	}
	pl, ok := parseLine(line)
	if !ok || pl.seq != p.seq {
		return false
	}
	sum, _ := l.sig.sums(pl.prefix)
	return sum == p.hash
}

// catchUp reads the lines from end to size and moves head to the last
// authentic record with a higher seq (one another process appended). With
// foreign (no anchor at all), any well-formed record is followed, so the
// chain stays continuous even when it cannot be checked. A final fragment
// without newline is a torn tail, handled by fragment.
func (l *Log) catchUp(size int64, foreign bool) error {
	lr := newLineReader(io.NewSectionReader(l.file, l.end, size-l.end), l.end, size-l.end, 1)
	skipped := 0
	for {
		li, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
		if !li.newline {
			l.end, l.known, l.haveHead = li.off+li.size, true, true
			return l.fragment(li)
		}
		if !l.follow(li, li.off+li.size+1, foreign) {
			skipped++
		}
	}
	if skipped > 0 {
		l.opts.logger.Warn("audit: lines that do not continue the chain", "file", l.path, "count", skipped)
	}
	l.end, l.known, l.haveHead = size, true, true
	return nil
}

// follow moves head to the record on line li when it continues the chain
// (or, with foreign, merely looks like a record).
func (l *Log) follow(li lineInfo, end int64, foreign bool) bool {
	if li.long {
		return false
	}
	p, ok := parseLine(li.b)
	if !ok || p.seq <= l.head.seq {
		return false
	}
	sum, mac := l.sig.sums(p.prefix)
	if !foreign && !hmac.Equal(mac[:], p.mac[:]) {
		return false
	}
	l.head = point{link: link{seq: p.seq, hash: sum}, file: LiveFile, end: end}
	return true
}

// fragment handles a last line without newline. A whole record that only
// lost its newline gets it back. Anything else is a torn write from a
// crash: it stays in the file as evidence, and a newline plus an
// audit.torn record naming its offset, size and SHA-256 follow it in one
// write; Verify checks that record before calling the line a crash.
func (l *Log) fragment(li lineInfo) error {
	if l.follow(li, li.off+li.size+1, false) {
		return l.writeLine([]byte{'\n'})
	}
	sum := li.digest()
	l.opts.logger.Warn("audit: torn last line (crash); recording it", "file", l.path, "offset", li.off, "bytes", li.size)
	_, err := l.writeEntry([]byte{'\n'}, Entry{Actor: "audit", Event: TornEvent}, tornDetail(li.off, li.size, sum[:]))
	return err
}

// terminate ends a final fragment with a newline, so that the next record
// starts its own line, when the chain goes on from a trusted head.
func (l *Log) terminate(size int64) error {
	if size == 0 {
		return nil
	}
	var last [1]byte
	if _, err := l.file.ReadAt(last[:], size-1); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if last[0] == '\n' {
		return nil
	}
	return l.writeLine([]byte{'\n'})
}

// tornDetail is the detail of an audit.torn record.
func tornDetail(off, size int64, sum []byte) []byte {
	return fmt.Appendf(nil, `{"bytes":%d,"file":%q,"offset":%d,"sha256":%q}`,
		size, LiveFile, off, hex.EncodeToString(sum))
}
