// Package originals keeps a copy of every file as it was before an agent
// changed it: content-addressed objects under .sandbox/originals/objects/
// and an append-only index (path, hash, session, tool_use_id, time) in
// .sandbox/originals/index.jsonl. Restore puts originals back atomically
// and removes files the agent created.
package originals

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// MaxSize is the largest file kept; saving a larger one fails (and the
// hook then refuses the write rather than lose the original).
const MaxSize = 64 << 20

// Entry is one line of the index: the state of Path before one change.
type Entry struct {
	Path      string      `json:"path"`           // absolute, parent symlinks resolved
	Existed   bool        `json:"existed"`        // false: the agent created the file
	Hash      string      `json:"hash,omitempty"` // SHA-256 hex of the content
	Mode      fs.FileMode `json:"mode,omitempty"`
	Session   string      `json:"session,omitempty"`
	ToolUseID string      `json:"tool_use_id,omitempty"`
	Time      time.Time   `json:"time"`
}

// Store is one folder's originals.
type Store struct {
	f   folder.Folder
	now func() time.Time
}

// Open returns the store of folder f; it touches nothing until used.
func Open(f folder.Folder) *Store { return &Store{f: f, now: time.Now} }

func (s *Store) index() string { return filepath.Join(s.f.Originals(), "index.jsonl") }

func (s *Store) object(hash string) string { return filepath.Join(s.f.Originals(), "objects", hash) }

// Save records the current state of path before a change by session's
// tool call toolUseID.
func (s *Store) Save(path, session, toolUseID string) error {
	real, err := realPath(path)
	if err != nil {
		return err
	}
	e := Entry{Path: real, Session: session, ToolUseID: toolUseID, Time: s.now().UTC()}
	fi, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("originals: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("originals: %s: %w", real, ErrNotRegular)
	default:
		e.Existed, e.Mode = true, fi.Mode().Perm()
		if e.Hash, err = s.store(real); err != nil {
			return err
		}
	}
	return s.append(e)
}

// realPath resolves the symlinks of path's parent directory (and of path
// itself when it is a link, since the agent's write follows it).
func realPath(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("originals: %q is not absolute", path)
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r, nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return filepath.Clean(path), nil // a new directory too
	}
	if err != nil {
		return "", fmt.Errorf("originals: %w", err)
	}
	return filepath.Join(dir, filepath.Base(path)), nil
}

// store copies the file at path into the objects and returns its hash.
func (s *Store) store(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("originals: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return "", fmt.Errorf("originals: %w", err)
	}
	if len(data) > MaxSize {
		return "", fmt.Errorf("originals: %s: %w", path, ErrTooLarge)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	obj := s.object(hash)
	if _, err := os.Lstat(obj); err == nil {
		return hash, nil
	}
	if err := os.MkdirAll(filepath.Dir(obj), 0o700); err != nil {
		return "", fmt.Errorf("originals: %w", err)
	}
	if err := atomicfile.WriteFile(obj, data, 0o400); err != nil {
		return "", fmt.Errorf("originals: %w", err)
	}
	return hash, nil
}

// append adds e to the index as one write of one line.
func (s *Store) append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("originals: %w", err)
	}
	if err := os.MkdirAll(s.f.Originals(), 0o700); err != nil {
		return fmt.Errorf("originals: %w", err)
	}
	f, err := os.OpenFile(s.index(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("originals: %w", err)
	}
	_, werr := f.Write(append(line, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("originals: index: %w", err)
	}
	return nil
}
