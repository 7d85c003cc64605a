// Package filestamp tells whether a file is the version a long-running
// process saw before, as git tells a clean index entry: by its identity,
// size and modification and change times, with "racy" stamps (times too
// close to when they were taken) never trusted, since a file rewritten in
// place within the file system's timestamp granularity keeps its times.
package filestamp

import (
	"os"
	"time"
)

// Racy is how recent a stamped change may be for the stamp to be
// trusted later (a variable for tests).
var Racy = 100 * time.Millisecond

// Stamp is a file's version as Lstat tells it; the zero value is a
// missing file.
type Stamp struct {
	ok       bool
	dev, ino uint64
	size     int64
	mtime    int64 // ns
	ctime    int64 // ns; the modification time where the system has none
	mode     os.FileMode
}

// Of stamps path (not following a final symbolic link).
func Of(path string) Stamp {
	fi, err := os.Lstat(path)
	if err != nil {
		return Stamp{}
	}
	s := Stamp{ok: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	s.dev, s.ino, s.ctime = sysStamp(fi, s.mtime)
	return s
}

// All stamps each of paths.
func All(paths ...string) []Stamp {
	out := make([]Stamp, len(paths))
	for i, p := range paths {
		out[i] = Of(p)
	}
	return out
}

// Equal reports whether a and b stamp the same versions.
func Equal(a, b []Stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Settled reports whether stamps taken at when can be trusted later: no
// stamped file changed within Racy before when.
func Settled(stamps []Stamp, when time.Time) bool {
	for _, s := range stamps {
		if s.ok && when.UnixNano()-max(s.mtime, s.ctime) < int64(Racy) {
			return false
		}
	}
	return true
}
