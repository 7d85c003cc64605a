package queue

import "os"

// OpenRegular opens path for reading only when it is a regular file: not
// through a link at its last name (O_NOFOLLOW; on Windows a reparse point
// is refused), without blocking (a FIFO is refused, never waited on), and
// only if the file opened is the one looked at. It is the queue's reader
// hygiene without the bus's own rules (one link, size cap), for the other
// files of the folder read outside the jail: a result's log and stream
// index. A missing file returns an error matching fs.ErrNotExist; a file
// refused, one matching ErrBadFile.
func OpenRegular(path string) (f *os.File, err error) {
	pre, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !pre.Mode().IsRegular() {
		return nil, badFile("%s: not a regular file (%s)", path, pre.Mode().Type())
	}
	f, err = openNoFollow(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !os.SameFile(pre, fi) || !fi.Mode().IsRegular() {
		f.Close()
		return nil, badFile("%s: changed while being opened", path)
	}
	return f, nil
}
