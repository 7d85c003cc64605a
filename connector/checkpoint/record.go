package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Checkpoint is one record: what a tool call was about to change, and
// the tree that keeps it.
type Checkpoint struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	Root      string    `json:"root"`
	Session   string    `json:"session,omitempty"`
	ToolUseID string    `json:"tool_use_id,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Command   string    `json:"command,omitempty"`
	// Targets are the kept paths, relative to Root ("." is the whole
	// work tree); Absent are targets that did not exist, which restore
	// removes again (a file the call created).
	Targets []string `json:"targets"`
	Absent  []string `json:"absent,omitempty"`
	Tree    string   `json:"tree"`
	Modes   string   `json:"modes,omitempty"`
	// Files and Bytes count what is kept; Added is what the store grew by.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	Added int64 `json:"added"`
	// NotKept lists (the first 100) paths under the targets that were
	// left out, and why; NotKeptCount counts them all.
	NotKept      []NotKept `json:"not_kept,omitempty"`
	NotKeptCount int       `json:"not_kept_count,omitempty"`
}

// NotKept is a path a checkpoint did not keep.
type NotKept struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Size   int64  `json:"size,omitempty"`
}

// maxRecord bounds a record read (100 not-kept paths and the targets).
const maxRecord = 4 << 20

// idPattern is compiled on first use: compiled at package initialisation
// it cost every hook call 12 KB and 118 allocations (cmd/sandbox/deps_test.go).
var idPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{8}$`)
})

func (s *Store) recordsDir() string { return filepath.Join(s.dir, "records") }

func (s *Store) recordPath(id string) string { return filepath.Join(s.recordsDir(), id+".json") }

func (s *Store) writeRecord(ck *Checkpoint) error {
	data, err := json.MarshalIndent(ck, "", "  ")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	// Renamed into place, not fsynced: the objects it names are not
	// either (see writeNew), and an fsync costs more than the whole
	// checkpoint of an unchanged work tree.
	return s.writeNew(s.recordPath(ck.ID), append(data, '\n'))
}

// Get reads checkpoint id.
func (s *Store) Get(id string) (*Checkpoint, error) {
	if !idPattern().MatchString(id) {
		return nil, fmt.Errorf("checkpoint %q: %w", id, ErrBadID)
	}
	ck, err := s.read(s.recordPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	if ck.ID != id {
		return nil, fmt.Errorf("checkpoint %s: %w", id, ErrCorrupt)
	}
	return ck, nil
}

func (s *Store) read(path string) (*Checkpoint, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxRecord {
		return nil, fmt.Errorf("checkpoint %s: %w", filepath.Base(path), ErrCorrupt)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var ck Checkpoint
	if err := json.Unmarshal(data, &ck); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", filepath.Base(path), ErrCorrupt)
	}
	return &ck, nil
}

// List returns the checkpoints, oldest first; session, when not empty,
// keeps only that session's. Records that do not parse are skipped and
// counted in bad.
func (s *Store) List(session string) (list []*Checkpoint, bad int, err error) {
	ents, err := os.ReadDir(s.recordsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("checkpoint: %w", err)
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !idPattern().MatchString(id) {
			continue
		}
		ck, err := s.read(filepath.Join(s.recordsDir(), e.Name()))
		if err != nil || ck.ID != id {
			bad++
			continue
		}
		if session == "" || ck.Session == session {
			list = append(list, ck)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	return list, bad, nil
}
