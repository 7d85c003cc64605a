package originals

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
)

// Entries reads the index in order. Lines that do not parse are skipped
// and counted in bad.
func (s *Store) Entries() (entries []Entry, bad int, err error) {
	data, err := os.ReadFile(s.index())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("originals: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil || !filepath.IsAbs(e.Path) || (e.Existed && !validHash(e.Hash)) {
			bad++
			continue
		}
		entries = append(entries, e)
	}
	return entries, bad, nil
}

func validHash(h string) bool {
	b, err := hex.DecodeString(h)
	return err == nil && len(b) == sha256.Size
}

// Selection picks what to restore: every path (All), the paths a session
// changed (Session), or the given Paths. Each path gets its earliest
// original within the selection.
type Selection struct {
	All     bool
	Session string
	Paths   []string // absolute
}

// Op is what restoring one path does.
type Op string

const (
	OpRestore   Op = "restore"   // write the original content back
	OpRemove    Op = "remove"    // the agent created it: delete it
	OpUnchanged Op = "unchanged" // already as it was
	OpNone      Op = "none"      // no original kept for this path
)

// Action is the plan for one path.
type Action struct {
	Path  string
	Op    Op
	Entry Entry
}

// Plan says what restoring sel would do, path by path, sorted by path.
func (s *Store) Plan(sel Selection) ([]Action, error) {
	entries, _, err := s.Entries()
	if err != nil {
		return nil, err
	}
	first := map[string]Entry{}
	for _, e := range entries {
		if _, seen := first[e.Path]; !seen && (sel.All || (sel.Session != "" && e.Session == sel.Session)) {
			first[e.Path] = e
		}
	}
	for _, p := range sel.Paths {
		real, err := realPath(p)
		if err != nil {
			return nil, err
		}
		if _, ok := first[real]; ok {
			continue
		}
		first[real] = Entry{Path: real}
		for _, e := range entries {
			if e.Path == real {
				first[real] = e
				break
			}
		}
	}
	var out []Action
	for p, e := range first {
		out = append(out, Action{Path: p, Op: s.op(e), Entry: e})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (s *Store) op(e Entry) Op {
	if e.Time.IsZero() {
		return OpNone
	}
	cur, err := os.ReadFile(e.Path)
	switch {
	case !e.Existed && errors.Is(err, fs.ErrNotExist):
		return OpUnchanged
	case !e.Existed:
		return OpRemove
	case err == nil && hashOf(cur) == e.Hash:
		return OpUnchanged
	}
	return OpRestore
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Apply carries out a plan: each file is replaced atomically (or
// removed). It goes on past a failing path and returns every failure.
func (s *Store) Apply(plan []Action) error {
	var errs []error
	for _, a := range plan {
		if err := s.apply(a); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a.Path, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Store) apply(a Action) error {
	if a.Op != OpRestore && a.Op != OpRemove {
		return nil
	}
	dir := filepath.Dir(a.Path)
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		return ErrMoved
	}
	if a.Op == OpRemove {
		if err := os.Remove(a.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := os.ReadFile(s.object(a.Entry.Hash))
	if err != nil {
		return fmt.Errorf("reading the original: %w", err)
	}
	if hashOf(data) != a.Entry.Hash {
		return ErrCorrupt
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := a.Entry.Mode
	if mode == 0 {
		mode = 0o644
	}
	return atomicfile.WriteFile(a.Path, data, mode)
}
