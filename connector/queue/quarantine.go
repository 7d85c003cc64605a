package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
)

// A Problem is a queue file that could not be used. Bad files have been
// moved to quarantine/ (Quarantined is the new path); the caller reports
// and audits each problem. Name is untrusted: show it escaped (String
// does).
type Problem struct {
	State       State  // the directory it was found in
	Name        string // file name in that directory
	Quarantined string // path in quarantine/, "" if it was not moved
	Err         error
}

func (p Problem) String() string {
	s := fmt.Sprintf("%s/%s: %v", p.State, display.EscapeLine(p.Name), p.Err)
	if p.Quarantined != "" {
		s += " (moved to quarantine/)"
	}
	return s
}

// quarantine renames path (never following it) into quarantine/ under a
// fresh unique name and returns the new path, or "" if it could not be
// moved (it may be gone already).
func (q *Queue) quarantine(path string, why error) string {
	name := sanitizeName(filepath.Base(path))
	dst := filepath.Join(q.f.Quarantine(), NewID()+"-"+name)
	if err := os.Rename(path, dst); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			q.log.Warn("quarantine failed", "file", display.EscapeLine(path), "err", err)
		}
		return ""
	}
	q.log.Warn("quarantined a bad queue file", "file", display.EscapeLine(path), "to", dst, "why", why)
	return dst
}

// problem quarantines path if err says the file is bad, and describes it.
func (q *Queue) problem(s State, path string, err error) Problem {
	p := Problem{State: s, Name: filepath.Base(path), Err: err}
	if errors.Is(err, ErrBadFile) {
		p.Quarantined = q.quarantine(path, err)
	}
	return p
}

// sanitizeName keeps a file name's safe characters for the quarantine copy.
func sanitizeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && (r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' ||
			r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	return b.String()
}
