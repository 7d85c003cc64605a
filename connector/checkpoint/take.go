package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
)

// Request says what one checkpoint keeps and what caused it.
type Request struct {
	// Paths are absolute: each is kept with its whole tree when it is a
	// directory. Paths outside the project are not the checkpoint's
	// business (writes there are decided by the policy) and are ignored.
	Paths []string
	// WholeTree keeps the whole work tree (git checkout, reset, clean,
	// stash, a write whose path is not known statically, ...).
	WholeTree bool
	// Cwd is where a shell command runs. Take does not use it; a
	// checkpointer that recomputes the paths elsewhere does (run mode's
	// jailed hook asks the supervisor, which trusts no path list from the
	// jail).
	Cwd       string
	Session   string
	ToolUseID string
	Tool      string
	Command   string
}

// Take keeps what req names and returns its record, or nil when nothing
// in the project was named. Paths that could not be kept (too large,
// unreadable, a regenerable cache) are listed in the record as NotKept
// without failing; an error means the store could not be written, and
// the caller must not let the change through as if it were kept.
func (s *Store) Take(req Request) (*Checkpoint, error) {
	targets := s.targets(req)
	if len(targets) == 0 {
		return nil, nil
	}
	now := s.opts.Now()
	ck := &Checkpoint{
		ID: newID(now), Time: now.UTC(), Root: s.root, Session: req.Session,
		ToolUseID: req.ToolUseID, Tool: req.Tool, Command: req.Command, Targets: targets,
	}
	err := s.withLock(func() error {
		if err := s.take(ck); err != nil {
			return err
		}
		s.maybePrune()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ck, nil
}

func (s *Store) take(ck *Checkpoint) error {
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close()
	cache := s.loadCache()
	w := &walker{s: s, root: root, cache: cache, ck: ck, tops: map[string]entry{},
		slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
	for _, t := range ck.Targets {
		if err := w.target(t); err != nil {
			return err
		}
	}
	for _, c := range w.sets {
		cache.set(c.rel, c.key, c.id)
	}
	// Parallel walks finish in any order: sort what they listed.
	slices.SortFunc(w.modes, func(a, b Item) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(ck.NotKept, func(a, b NotKept) int { return strings.Compare(a.Path, b.Path) })
	tree, err := s.sparseTree(w.tops, &ck.Added)
	if err != nil {
		return err
	}
	ck.Tree = tree.String()
	if m := modesBlob(w.modes); len(m) > 0 {
		id, added, err := s.put(kindBlob, m)
		if err != nil {
			return err
		}
		ck.Modes, ck.Added = id.String(), ck.Added+added
	}
	if err := s.writeRecord(ck); err != nil {
		return err
	}
	if err := s.saveCache(cache, ck.Time.UnixNano()); err != nil {
		s.opts.Log.Warn("checkpoint: stat cache not saved (the next checkpoint reads more)", "err", err)
	}
	return nil
}

// targets turns req into paths relative to the root, parents before
// children and without paths inside another target; "." alone for the
// whole tree.
func (s *Store) targets(req Request) []string {
	if req.WholeTree {
		return []string{"."}
	}
	var rels []string
	for _, p := range req.Paths {
		rel, ok := s.rel(p)
		if !ok {
			continue
		}
		if rel == "." {
			return []string{"."}
		}
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	var out []string
	for _, r := range rels {
		if n := len(out); n > 0 && (out[n-1] == r || strings.HasPrefix(r, out[n-1]+"/")) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// rel returns p relative to the root, slash-separated, with the links of
// its parent directories resolved (p itself may be a link: it is kept as
// one), or false when p is not inside the project.
func (s *Store) rel(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	p = filepath.Clean(p)
	dir, base := filepath.Dir(p), filepath.Base(p)
	if p == dir { // the file system's root
		return "", false
	}
	real, rest := dir, ""
	for {
		r, err := filepath.EvalSymlinks(real)
		if err == nil {
			real = filepath.Join(r, rest)
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(real) == real {
			return "", false
		}
		rest = filepath.Join(filepath.Base(real), rest)
		real = filepath.Dir(real)
	}
	rel, err := filepath.Rel(s.root, filepath.Join(real, base))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if base == "." || base == ".." {
		return "", false
	}
	return path.Clean(rel), true
}
