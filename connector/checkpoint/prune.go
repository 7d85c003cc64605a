package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PruneReport says what Prune removed.
type PruneReport struct {
	Records int   // checkpoints removed
	Objects int   // objects no checkpoint needs any more
	Bytes   int64 // bytes freed
	Kept    int   // checkpoints left
	Size    int64 // bytes the objects left take
}

func (s *Store) prunedPath() string { return filepath.Join(s.dir, "pruned") }

// maybePrune prunes when the last prune is older than PruneEvery. It runs
// under the lock; a failure is logged, not returned: the checkpoint
// itself was kept.
func (s *Store) maybePrune() {
	if fi, err := os.Lstat(s.prunedPath()); err == nil && s.opts.Now().Sub(fi.ModTime()) < s.opts.PruneEvery {
		return
	}
	if _, err := s.prune(); err != nil {
		s.opts.Log.Warn("checkpoint: prune failed", "err", err)
	}
}

// Prune removes checkpoints older than MaxAge, then the oldest ones until
// the objects the others need fit in MaxStoreBytes (the newest checkpoint
// is always kept), then every object no checkpoint needs.
func (s *Store) Prune() (PruneReport, error) {
	var r PruneReport
	err := s.withLock(func() (err error) {
		r, err = s.prune()
		return err
	})
	return r, err
}

func (s *Store) prune() (PruneReport, error) {
	var r PruneReport
	list, _, err := s.List("")
	if err != nil {
		return r, err
	}
	sizes, err := s.objectSizes()
	if err != nil {
		return r, err
	}
	live := map[ID]bool{}
	cutoff := s.opts.Now().Add(-s.opts.MaxAge)
	full := false
	for i := len(list) - 1; i >= 0; i-- { // newest first
		ck, newest := list[i], i == len(list)-1
		drop := !newest && (full || ck.Time.Before(cutoff))
		var fresh map[ID]bool
		var cost int64
		if !drop {
			fresh, cost = s.mark(ck, live, sizes)
			if !newest && r.Size+cost > s.opts.MaxStoreBytes {
				drop, full = true, true
			}
		}
		if drop {
			if err := os.Remove(s.recordPath(ck.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return r, fmt.Errorf("checkpoint: %w", err)
			}
			r.Records++
			continue
		}
		for id := range fresh {
			live[id] = true
		}
		r.Size += cost
		r.Kept++
	}
	for id, size := range sizes {
		if live[id] {
			continue
		}
		if err := os.Remove(s.objectPath(id)); err == nil {
			r.Objects++
			r.Bytes += size
		}
	}
	if r.Objects > 0 {
		if err := s.dropCache(); err != nil {
			return r, fmt.Errorf("checkpoint: %w", err)
		}
	}
	return r, s.writeNew(s.prunedPath(), nil)
}

// objectSizes lists every object and its size on disk.
func (s *Store) objectSizes() (map[ID]int64, error) {
	out := map[ID]int64{}
	objs := filepath.Join(s.dir, "objects")
	err := filepath.WalkDir(objs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || d.Name()[0] == '.' {
			return nil
		}
		id, perr := ParseID(filepath.Base(filepath.Dir(p)) + d.Name())
		if perr != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			out[id] = fi.Size()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return out, nil
}

// mark returns the objects ck needs that live does not hold yet, and
// their size on disk.
func (s *Store) mark(ck *Checkpoint, live map[ID]bool, sizes map[ID]int64) (map[ID]bool, int64) {
	fresh := map[ID]bool{}
	var size int64
	add := func(id ID) bool {
		if live[id] || fresh[id] {
			return false
		}
		fresh[id] = true
		size += sizes[id]
		return true
	}
	if id, err := ParseID(ck.Modes); err == nil {
		add(id)
	}
	if tree, err := ParseID(ck.Tree); err == nil { // a broken record keeps nothing alive
		s.markTree(tree, add)
	}
	return fresh, size
}

func (s *Store) markTree(id ID, add func(ID) bool) {
	if !add(id) {
		return
	}
	data, err := s.get(kindTree, id)
	if err != nil {
		return // missing or corrupt: nothing below it to keep
	}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+len(ID{}) {
			return
		}
		var kid ID
		copy(kid[:], data[nul+1:])
		if string(data[:sp]) == modeDir {
			s.markTree(kid, add)
		} else {
			add(kid)
		}
		data = data[nul+1+len(kid):]
	}
}
