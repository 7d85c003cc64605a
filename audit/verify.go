package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// logFile is one *.jsonl file as it was when Verify took its snapshot.
type logFile struct {
	name string // base name
	rel  string // relative to the project root, for reports
	size int64
}

// Verify checks f's audit log against the per-user key and anchored head
// in st and names the first bad record. An error means Verify could not
// run (no key, unreadable directory); a bad log is a Report with OK false.
func Verify(f folder.Folder, st *userstate.State) (*Report, error) {
	anchors, err := newAnchorStore(st, f.Root)
	if err != nil {
		return nil, err
	}
	dir, err := Dir(f, st)
	if err != nil {
		return nil, err
	}
	files, anchor, anchorErr, err := snapshot(dir, anchors)
	if err != nil {
		return nil, err
	}
	s := newScanner(st.Key, anchor)
	if anchorErr != nil {
		s.rep.add(Problem{Kind: KindAnchor, Message: anchorErr.Error()})
	}
	for i, lf := range files {
		s.rep.Files = append(s.rep.Files, lf.rel)
		if err := s.scanFile(filepath.Join(dir, lf.name), lf, i == len(files)-1); err != nil {
			return nil, err
		}
	}
	s.finish(anchorErr == nil)
	return s.rep, nil
}

// snapshot reads the anchor, then the files' sizes, under a shared lock when
// the lock file exists, so that the log read is at least as long as the
// anchored head and no append is half-done. An anchor that cannot be
// trusted is returned as anchorErr: a finding, not a failure to verify.
func snapshot(dir string, anchors *anchorStore) (files []logFile, a *point, anchorErr, err error) {
	if l, lerr := openLockFlag(filepath.Join(dir, lockFile), os.O_RDONLY); lerr == nil {
		defer l.close()
		if err := l.acquire(false, defaultOptions().lockTimeout); err != nil {
			return nil, nil, nil, err
		}
		defer l.release()
	}
	p, ok, err := anchors.read()
	switch {
	case errors.Is(err, ErrBadAnchor):
		anchorErr = err
	case err != nil:
		return nil, nil, nil, err
	case ok:
		a = &p
	}
	files, err = listFiles(dir)
	return files, a, anchorErr, err
}

// listFiles returns the *.jsonl files of the audit dir in name order; a
// file that is not regular has size -1.
func listFiles(dir string) ([]logFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit dir: %w", err)
	}
	var files []logFile
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		lf := logFile{name: e.Name(), rel: e.Name()}
		if fi, err := os.Lstat(filepath.Join(dir, e.Name())); err == nil && fi.Mode().IsRegular() {
			lf.size = fi.Size()
		} else {
			lf.size = -1 // reported by scanFile
		}
		files = append(files, lf)
	}
	return files, nil
}

// scanFile feeds the lines of one file, up to its snapshot size, to s.
func (s *scanner) scanFile(path string, lf logFile, last bool) error {
	if lf.size < 0 {
		s.rep.add(Problem{File: lf.rel, Kind: KindMalformed, Message: "not a regular file"})
		return nil
	}
	fh, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer fh.Close()
	return s.scan(io.LimitReader(fh, lf.size), lf.size, lf.rel, last)
}

// scan feeds the lines of one file to s; last says it is the log's last.
func (s *scanner) scan(r io.Reader, size int64, rel string, last bool) error {
	s.file = rel
	s.firstOfFile = true
	lr := newLineReader(r, 0, size, 1)
	for {
		li, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		s.line(&li, last && !li.newline)
		s.firstOfFile = false
	}
}

// VerifyChain checks a copy of a log kept elsewhere (team mode's audit
// stream), given as its lines in order, under name: every line a record,
// the first one seq 1, no seq missing, moved or repeated, each record's
// prev the hash of the one before. With key nil the HMACs are not checked
// (who verifies a teammate's copy does not hold the teammate's per-user
// key), so a copy rewritten whole from some point on is caught only
// against the machine's own log (Verify); a record removed, inserted or
// changed in place is caught here.
func VerifyChain(name string, lines [][]byte, key []byte) *Report {
	s := newScanner(key, nil)
	s.chainOnly = key == nil
	s.rep.Files = []string{name}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	_ = s.scan(&buf, int64(buf.Len()), name, true) // a bytes.Buffer does not fail
	s.finish(false)
	return s.rep
}
