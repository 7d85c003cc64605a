package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

// Apply carries out a plan. Every write goes through directories opened
// one component at a time, each checked to be the real directory that
// lstat saw (not a link swapped in since), so that no link planted in
// the project makes restore write anywhere else, inside the project or
// out of it. Files and links are replaced atomically (a temporary name
// beside them, then rename). It goes on past a failing path and returns
// every failure.
func (s *Store) Apply(plan []Action) error {
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	a := &applier{s: s, dirs: map[string]*os.Root{".": root}}
	defer a.close()
	var errs []error
	for _, act := range plan {
		if !act.Changes() {
			continue
		}
		if err := a.do(act); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", act.Path, err))
		}
	}
	return errors.Join(errs...)
}

type applier struct {
	s    *Store
	dirs map[string]*os.Root // opened, checked directories by path
}

func (a *applier) close() {
	for _, r := range a.dirs {
		r.Close()
	}
}

// dir opens directory d strictly: every component must be a directory
// (not a link) and the opened directory must be the one lstat saw.
func (a *applier) dir(d string) (*os.Root, error) {
	if r, ok := a.dirs[d]; ok {
		return r, nil
	}
	parent, err := a.dir(path.Dir(d))
	if err != nil {
		return nil, err
	}
	name := path.Base(d)
	fi, err := parent.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", d, ErrLink)
	}
	r, err := parent.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	f, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, err
	}
	st, err := f.Stat()
	f.Close()
	if err != nil || !os.SameFile(fi, st) {
		r.Close()
		return nil, fmt.Errorf("%s: %w", d, ErrLink)
	}
	a.dirs[d] = r
	return r, nil
}

func (a *applier) do(act Action) error {
	dr, err := a.dir(path.Dir(act.Path))
	if err != nil {
		return err
	}
	name, it := path.Base(act.Path), act.item
	switch {
	case act.Op == OpRemove:
		return dr.Remove(name)
	case act.Op == OpMkdir:
		if err := dr.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return a.chmodDir(act.Path, it.Perm)
	case act.Op == OpChmod && it.Kind == Dir:
		return a.chmodDir(act.Path, it.Perm)
	case act.Op == OpChmod:
		return chmodFile(dr, name, it.Perm)
	case act.Op == OpRestore && it.Kind == Link:
		return a.link(dr, name, it)
	case act.Op == OpRestore:
		return a.file(dr, name, it)
	}
	return fmt.Errorf("bug: restore op %q on a %s", act.Op, it.Kind)
}

func (a *applier) chmodDir(rel string, perm fs.FileMode) error {
	r, err := a.dir(rel)
	if err != nil {
		return err
	}
	f, err := r.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(perm)
}

func chmodFile(dr *os.Root, name string, perm fs.FileMode) error {
	f, err := dr.OpenFile(name, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("no longer a regular file")
	}
	return f.Chmod(perm)
}

func tmpName() string {
	var b [6]byte
	rand.Read(b[:])
	return ".sandbox-restore-" + hex.EncodeToString(b[:])
}

func (a *applier) file(dr *os.Root, name string, it Item) (err error) {
	data, err := a.s.get(kindBlob, it.ID)
	if err != nil {
		return err
	}
	tmp := tmpName()
	f, err := dr.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dr.Remove(tmp)
		}
	}()
	_, werr := f.Write(data)
	merr := f.Chmod(it.Perm)
	serr := f.Sync()
	if err := errors.Join(werr, merr, serr, f.Close()); err != nil {
		return err
	}
	return dr.Rename(tmp, name)
}

func (a *applier) link(dr *os.Root, name string, it Item) error {
	target, err := a.s.get(kindBlob, it.ID)
	if err != nil {
		return err
	}
	tmp := tmpName()
	if err := dr.Symlink(string(target), tmp); err != nil {
		return err
	}
	if err := dr.Rename(tmp, name); err != nil {
		dr.Remove(tmp)
		return err
	}
	return nil
}
