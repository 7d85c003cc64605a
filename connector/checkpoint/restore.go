package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Op is what restoring one path does.
type Op string

const (
	OpRestore   Op = "restore"   // write the kept file or link back
	OpMkdir     Op = "mkdir"     // recreate a deleted directory
	OpChmod     Op = "chmod"     // same content, other permission bits
	OpRemove    Op = "remove"    // it did not exist at the checkpoint: remove it
	OpUnchanged Op = "unchanged" // already as kept
	OpConflict  Op = "conflict"  // left alone: see Note
)

// Action is the plan for one path (relative to the root).
type Action struct {
	Path string
	Op   Op
	Kind Kind
	Note string
	item Item
}

// Changes reports whether the action writes anything.
func (a Action) Changes() bool {
	return a.Op == OpRestore || a.Op == OpMkdir || a.Op == OpChmod || a.Op == OpRemove
}

// Plan says, path by path, what restoring ck would do; it changes
// nothing. Paths under a target are brought back to their kept state;
// the targets' parent directories are only recreated when missing;
// files that appeared since the checkpoint inside a kept directory are
// left alone (restore never deletes what the checkpoint did not record
// as absent).
func (s *Store) Plan(ck *Checkpoint) ([]Action, error) {
	if ck.Root != s.root {
		return nil, fmt.Errorf("checkpoint %s (%s): %w", ck.ID, ck.Root, ErrOtherProject)
	}
	items, err := s.items(ck)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close()
	p := &planner{s: s, root: root, parents: map[string]error{}}
	var out []Action
	for _, it := range items {
		out = append(out, p.action(it, underTarget(ck, it.Path)))
	}
	for _, rel := range ck.Absent {
		out = append(out, p.absent(rel))
	}
	return out, nil
}

// items reads ck's tree and applies its modes.
func (s *Store) items(ck *Checkpoint) ([]Item, error) {
	tree, err := ParseID(ck.Tree)
	if err != nil {
		return nil, err
	}
	items, err := s.readTree(tree, "", nil)
	if err != nil {
		return nil, err
	}
	if ck.Modes == "" {
		return items, nil
	}
	mid, err := ParseID(ck.Modes)
	if err != nil {
		return nil, err
	}
	data, err := s.get(kindBlob, mid)
	if err != nil {
		return nil, err
	}
	modes, err := parseModes(data)
	if err != nil {
		return nil, err
	}
	for i := range items {
		if m, ok := modes[items[i].Path]; ok && items[i].Kind != Link {
			items[i].Perm = m
		}
	}
	return items, nil
}

func underTarget(ck *Checkpoint, rel string) bool {
	for _, t := range ck.Targets {
		if t == "." || rel == t || strings.HasPrefix(rel, t+"/") {
			return true
		}
	}
	return false
}

type planner struct {
	s       *Store
	root    *os.Root
	parents map[string]error // directory -> nil when it is a real directory or missing
}

// parentsOK checks that no parent of rel is a link or a non-directory:
// restore writes only through real directories of the project.
func (p *planner) parentsOK(rel string) error {
	d := path.Dir(rel)
	if d == "." {
		return nil
	}
	if err, ok := p.parents[d]; ok {
		return err
	}
	err := p.parentsOK(d)
	if err == nil {
		fi, lerr := p.root.Lstat(d)
		switch {
		case errors.Is(lerr, fs.ErrNotExist):
		case lerr != nil:
			err = lerr
		case !fi.IsDir():
			err = fmt.Errorf("%s: %w", d, ErrLink)
		}
	}
	p.parents[d] = err
	return err
}

func (p *planner) action(it Item, target bool) Action {
	a := Action{Path: it.Path, Kind: it.Kind, item: it, Op: OpUnchanged}
	if skipped(it.Path) { // never kept; refused should a record say otherwise
		a.Op, a.Note = OpConflict, "restore never writes in .git or .sandbox"
		return a
	}
	if err := p.parentsOK(it.Path); err != nil {
		a.Op, a.Note = OpConflict, err.Error()
		return a
	}
	fi, err := p.root.Lstat(it.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && it.Kind == Dir:
		a.Op = OpMkdir
	case errors.Is(err, fs.ErrNotExist):
		a.Op = OpRestore
	case err != nil:
		a.Op, a.Note = OpConflict, err.Error()
	case it.Kind == Dir && !fi.IsDir():
		a.Op, a.Note = OpConflict, "a directory at the checkpoint, now a "+kindOf(fi).String()+": remove it first"
	case it.Kind == Dir && target && fi.Mode().Perm() != it.Perm:
		a.Op = OpChmod
	case it.Kind == Dir:
	case fi.IsDir():
		a.Op, a.Note = OpConflict, "a "+it.Kind.String()+" at the checkpoint, now a directory: remove it first"
	case !p.same(it, fi):
		a.Op = OpRestore
	case it.Kind == File && fi.Mode().Perm() != it.Perm:
		a.Op = OpChmod
	}
	return a
}

func kindOf(fi fs.FileInfo) Kind {
	switch {
	case fi.IsDir():
		return Dir
	case fi.Mode()&fs.ModeSymlink != 0:
		return Link
	}
	return File
}

// same reports whether the path holds the kept content.
func (p *planner) same(it Item, fi fs.FileInfo) bool {
	if kindOf(fi) != it.Kind || !(it.Kind == Link || fi.Mode().IsRegular()) {
		return false
	}
	var data []byte
	if it.Kind == Link {
		t, err := p.root.Readlink(it.Path)
		if err != nil {
			return false
		}
		data = []byte(t)
	} else {
		f, err := p.root.OpenFile(it.Path, os.O_RDONLY|oNoFollow, 0)
		if err != nil {
			return false
		}
		defer f.Close()
		if data, err = io.ReadAll(io.LimitReader(f, maxObject)); err != nil {
			return false
		}
	}
	return objectID(kindBlob, data) == it.ID
}

func (p *planner) absent(rel string) Action {
	a := Action{Path: rel, Op: OpUnchanged, Note: "did not exist"}
	if skipped(rel) {
		a.Op, a.Note = OpConflict, "restore never writes in .git or .sandbox"
		return a
	}
	if err := p.parentsOK(rel); err != nil {
		a.Op, a.Note = OpConflict, err.Error()
		return a
	}
	fi, err := p.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		a.Op, a.Note = OpConflict, err.Error()
	case fi.IsDir():
		a.Op, a.Kind, a.Note = OpConflict, Dir, "did not exist at the checkpoint; a directory now, left alone"
	default:
		a.Op, a.Kind, a.Note = OpRemove, kindOf(fi), "did not exist at the checkpoint"
	}
	return a
}
