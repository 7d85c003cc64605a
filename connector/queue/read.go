package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// badFile wraps ErrBadFile with what was wrong.
func badFile(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadFile, fmt.Sprintf(format, args...))
}

// openChecked opens path for reading with reader hygiene: the name must
// be a regular file (checked with Lstat before opening, so a FIFO or a
// device is never opened), it is opened without following a link and
// without blocking, and the opened file must be the one looked at, a
// regular file with exactly one link and at most MaxFileSize bytes.
// A missing file returns an error matching fs.ErrNotExist; a bad one
// ErrBadFile; anything else (EMFILE, EIO) is returned as is.
func openChecked(path string) (f *os.File, err error) {
	pre, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !pre.Mode().IsRegular() {
		return nil, badFile("not a regular file (%s)", pre.Mode().Type())
	}
	f, err = openNoFollow(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if isHostile(err) {
			return nil, badFile("open: %v", err)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if err := checkOpened(f, pre, fi); err != nil {
		return nil, err
	}
	return f, nil
}

func checkOpened(f *os.File, pre, fi os.FileInfo) error {
	switch {
	case !os.SameFile(pre, fi):
		return badFile("replaced while opening")
	case !fi.Mode().IsRegular():
		return badFile("not a regular file (%s)", fi.Mode().Type())
	case fi.Size() > MaxFileSize:
		return badFile("%d bytes, more than %d", fi.Size(), MaxFileSize)
	}
	n, err := linkCount(f, fi)
	if err != nil {
		return fmt.Errorf("link count: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("%s: removed while opening: %w", f.Name(), fs.ErrNotExist)
	}
	if n != 1 {
		return badFile("%d hard links", n)
	}
	return nil
}

// readCapped reads the whole file, refusing more than MaxFileSize bytes
// even if it grew after the size check.
func readCapped(f *os.File) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if len(b) > MaxFileSize {
		return nil, badFile("grew beyond %d bytes", MaxFileSize)
	}
	return b, nil
}

// readChecked opens with hygiene and reads the whole file once.
func readChecked(path string) ([]byte, error) {
	f, err := openChecked(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f)
}

// decodeStrict decodes exactly one JSON value with no unknown fields and
// nothing after it.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badFile("schema: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badFile("schema: data after the JSON value")
	}
	return nil
}

// parseRequest decodes and validates a request read from file name.
func parseRequest(raw []byte, name string) (*Request, error) {
	var r Request
	if err := decodeStrict(raw, &r); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	if name != r.ID+".json" {
		return nil, badFile("id %q does not match the file name", r.ID)
	}
	return &r, nil
}

// idFromName returns the id of a file name ID.json, or "" if the name is
// not of that form.
func idFromName(name string) string {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || !ValidID(id) {
		return ""
	}
	return id
}
