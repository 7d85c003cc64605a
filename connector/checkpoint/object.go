package checkpoint

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// ID is an object's name: the SHA-256 of its git header and content, as
// in a git repository whose object format is sha256, so that
// `git --git-dir=STORE cat-file -p ID` reads it when debugging.
type ID [sha256.Size]byte

func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is unset.
func (id ID) IsZero() bool { return id == ID{} }

// ParseID parses 64 hex digits.
func ParseID(s string) (ID, error) {
	var id ID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("%q: %w", s, ErrCorrupt)
	}
	copy(id[:], b)
	return id, nil
}

// Object kinds, as git names them.
const (
	kindBlob = "blob"
	kindTree = "tree"
)

// zlibWriters are reused: a new writer allocates about a megabyte of
// state, which cost more than compressing a small file.
var zlibWriters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return zw
}}

// objectID is the id of content of kind.
func objectID(kind string, data []byte) ID {
	h := sha256.New()
	h.Write(header(kind, len(data)))
	h.Write(data)
	var id ID
	h.Sum(id[:0])
	return id
}

func header(kind string, n int) []byte {
	return append(strconv.AppendInt([]byte(kind+" "), int64(n), 10), 0)
}

func (s *Store) objectPath(id ID) string {
	h := id.String()
	return filepath.Join(s.dir, "objects", h[:2], h[2:])
}

// has reports whether the object exists. Objects are written once and
// removed only by prune (which drops the stat cache), so existence is
// enough.
func (s *Store) has(id ID) bool {
	_, err := os.Lstat(s.objectPath(id))
	return err == nil
}

// put stores data as an object of kind and returns its id and the bytes
// it added to the store (0 when it was there already).
func (s *Store) put(kind string, data []byte) (ID, int64, error) {
	id := objectID(kind, data)
	if s.has(id) {
		return id, 0, nil
	}
	var buf bytes.Buffer
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	zw.Reset(&buf)
	zw.Write(header(kind, len(data)))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return id, 0, fmt.Errorf("checkpoint: compressing: %w", err)
	}
	if err := s.writeNew(s.objectPath(id), buf.Bytes()); err != nil {
		return id, 0, err
	}
	return id, int64(buf.Len()), nil
}

// writeNew writes a file that nobody reads until it is renamed into place.
// Objects are not fsynced one by one (git does not either): the record
// that names them is, and a crash that loses an object makes restore
// report it corrupt rather than write wrong bytes.
func (s *Store) writeNew(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			f, err = os.CreateTemp(dir, ".tmp-*")
		}
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// maxObject bounds what get inflates: MaxFileSize plus a tree's worth.
const maxObject = 1 << 30

// get reads object id, checks that it is of kind and that its content
// hashes to id.
func (s *Store) get(kind string, id ID) ([]byte, error) {
	f, err := os.Open(s.objectPath(id))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s: %w", id, err)
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s: %w", id, ErrCorrupt)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxObject))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s: %w", id, ErrCorrupt)
	}
	nul := bytes.IndexByte(raw, 0)
	if nul < 0 || objectID(kind, raw[nul+1:]) != id {
		return nil, fmt.Errorf("checkpoint: object %s: %w", id, ErrCorrupt)
	}
	return raw[nul+1:], nil
}
