package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
)

// walker collects the objects of one checkpoint. Each directory's tree
// is written as soon as its walk ends, so that a whole work tree needs no
// second pass. Subdirectories are walked in parallel, up to GOMAXPROCS at
// a time: the walk is one lstat per file, and lstats of different
// directories run side by side in the kernel.
type walker struct {
	s     *Store
	root  *os.Root
	cache *statCache // only read during the walk; sets are applied after
	tops  map[string]entry
	slots chan struct{} // a token per goroutine that may walk a directory

	mu sync.Mutex
	// guarded by mu:
	ck    *Checkpoint
	modes []Item     // items whose permission bits git's modes lack
	read  int64      // bytes read from files the cache did not know
	sets  []cacheSet // stat cache entries to add once the walk is done
}

type cacheSet struct {
	rel string
	key statKey
	id  ID
}

// entry is one name in a tree.
type entry struct {
	name, mode string
	id         ID
}

// always left out: the user's repository and our own folder. Restore
// never writes there either, since no checkpoint holds them.
func skipped(rel string) bool {
	if rel == ".sandbox" || strings.HasPrefix(rel, ".sandbox/") {
		return true
	}
	for rel != "." && rel != "/" && rel != "" {
		if path.Base(rel) == ".git" {
			return true
		}
		rel = path.Dir(rel)
	}
	return false
}

// heavyNames are directories of downloaded dependencies and caches that
// their tools recreate (npm, pip, tox, Python): not kept, and said so.
var heavyNames = map[string]bool{"node_modules": true, "__pycache__": true, ".tox": true}

// heavyMarkers mark a directory as a regenerable cache wherever it is:
// CACHEDIR.TAG (the cache directory tagging convention: Cargo's target/,
// .pytest_cache, .mypy_cache, ...) and pyvenv.cfg (a Python virtualenv).
var heavyMarkers = []string{"CACHEDIR.TAG", "pyvenv.cfg"}

func heavy(rel string, kids []fs.DirEntry) string {
	if heavyNames[path.Base(rel)] {
		return "dependencies or cache that its tool recreates (" + path.Base(rel) + ")"
	}
	for _, k := range kids {
		for _, m := range heavyMarkers {
			if k.Name() == m {
				return "regenerable cache directory (it holds " + m + ")"
			}
		}
	}
	return ""
}

func (w *walker) notKept(rel, reason string, size int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ck.NotKeptCount++
	if len(w.ck.NotKept) < maxNotKeptListed {
		w.ck.NotKept = append(w.ck.NotKept, NotKept{Path: rel, Reason: reason, Size: size})
	}
}

// target keeps rel (a file, or a directory and its whole tree), and its
// parent directories' modes so that restore recreates them as they were.
// Targets never hold one another (Store.targets).
func (w *walker) target(rel string) error {
	if rel == "." {
		e, ok, err := w.dir(".", nil)
		if ok {
			w.tops["."] = e
		}
		return err
	}
	if skipped(rel) {
		return nil
	}
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if _, ok := w.tops[d]; ok {
			continue
		}
		fi, err := w.root.Lstat(d)
		if err != nil || !fi.IsDir() {
			break // the target's own lstat says what is there
		}
		w.tops[d] = entry{name: path.Base(d), mode: modeDir}
		w.perm(Item{Path: d, Kind: Dir, Perm: fi.Mode().Perm()})
	}
	fi, err := w.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.ck.Absent = append(w.ck.Absent, rel)
		return nil
	case err != nil:
		w.notKept(rel, "cannot be read: "+oneLine(err), 0)
		return nil
	}
	e, ok, err := w.visit(rel, fi)
	if ok {
		w.tops[rel] = e
	}
	return err
}

// visit returns rel's tree entry; false when it is not kept.
func (w *walker) visit(rel string, fi fs.FileInfo) (entry, bool, error) {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return w.link(rel)
	case fi.IsDir():
		return w.dir(rel, fi)
	case fi.Mode().IsRegular():
		return w.file(rel, fi)
	}
	w.notKept(rel, "not a regular file, directory or link ("+fi.Mode().Type().String()+")", 0)
	return entry{}, false, nil
}

func (w *walker) perm(it Item) {
	if it.Perm != defaultPerm(gitMode(it)) {
		w.mu.Lock()
		w.modes = append(w.modes, it)
		w.mu.Unlock()
	}
}

func (w *walker) added(n int64) {
	w.mu.Lock()
	w.ck.Added += n
	w.mu.Unlock()
}

// dir writes the tree of rel with everything below it that is kept.
func (w *walker) dir(rel string, fi fs.FileInfo) (entry, bool, error) {
	f, err := w.root.Open(rel)
	if err != nil {
		w.notKept(rel, "cannot be listed: "+oneLine(err), 0)
		return entry{}, false, nil
	}
	kids, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		w.notKept(rel, "cannot be listed: "+oneLine(err), 0)
		return entry{}, false, nil
	}
	if rel != "." {
		if why := heavy(rel, kids); why != "" {
			w.notKept(rel, why, 0)
			return entry{}, false, nil
		}
		w.perm(Item{Path: rel, Kind: Dir, Perm: fi.Mode().Perm()})
	}
	ents := make([]entry, len(kids))
	kept := make([]bool, len(kids))
	var wg sync.WaitGroup
	var errs errList
	for i, k := range kids {
		kr := k.Name()
		if kr == ".git" || (rel == "." && kr == ".sandbox") { // skipped(kr), rel being walked
			continue
		}
		if rel != "." {
			kr = rel + "/" + kr
		}
		ki, err := k.Info()
		if err != nil {
			continue // gone since the listing
		}
		if ki.IsDir() && w.slot() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-w.slots }()
				e, ok, err := w.visit(kr, ki)
				ents[i], kept[i] = e, ok
				errs.add(err)
			}()
			continue
		}
		e, ok, err := w.visit(kr, ki)
		ents[i], kept[i] = e, ok
		errs.add(err)
	}
	wg.Wait()
	if err := errs.first(); err != nil {
		return entry{}, false, err
	}
	out := ents[:0]
	for i, e := range ents {
		if kept[i] {
			out = append(out, e)
		}
	}
	id, added, err := w.s.putTree(out)
	w.added(added)
	return entry{name: path.Base(rel), mode: modeDir, id: id}, true, err
}

// slot takes a token to walk a directory in a new goroutine, if one is
// free; otherwise the caller walks it itself.
func (w *walker) slot() bool {
	select {
	case w.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// errList keeps the first error of parallel walks.
type errList struct {
	mu  sync.Mutex
	err error
}

func (l *errList) add(err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

func (l *errList) first() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (w *walker) link(rel string) (entry, bool, error) {
	target, err := w.root.Readlink(rel)
	if err != nil {
		w.notKept(rel, "cannot be read: "+oneLine(err), 0)
		return entry{}, false, nil
	}
	id, added, err := w.s.put(kindBlob, []byte(target))
	if err != nil {
		return entry{}, false, err
	}
	w.added(added)
	return w.keep(Item{Path: rel, Kind: Link, ID: id, Size: int64(len(target))})
}

func (w *walker) file(rel string, fi fs.FileInfo) (entry, bool, error) {
	it := Item{Path: rel, Kind: File, Perm: fi.Mode().Perm(), Size: fi.Size()}
	key, cacheable := statKeyOf(fi)
	if id, ok := w.cache.lookup(rel, key); cacheable && ok {
		it.ID = id
		return w.keep(it)
	}
	if fi.Size() > w.s.opts.MaxFileSize {
		w.notKept(rel, fmt.Sprintf("larger than %d MiB", w.s.opts.MaxFileSize>>20), fi.Size())
		return entry{}, false, nil
	}
	if !w.reserve(fi.Size()) {
		w.notKept(rel, fmt.Sprintf("this checkpoint already read %d MiB", w.s.opts.MaxReadBytes>>20), fi.Size())
		return entry{}, false, nil
	}
	data, fi, err := w.readFile(rel)
	if err != nil {
		w.notKept(rel, "cannot be read: "+oneLine(err), it.Size)
		return entry{}, false, nil
	}
	id, added, err := w.s.put(kindBlob, data)
	if err != nil {
		return entry{}, false, err
	}
	w.added(added)
	it.ID, it.Size, it.Perm = id, int64(len(data)), fi.Mode().Perm()
	if key, ok := statKeyOf(fi); ok && key.Size == int64(len(data)) {
		w.mu.Lock()
		w.sets = append(w.sets, cacheSet{rel, key, id})
		w.mu.Unlock()
	}
	return w.keep(it)
}

// reserve counts n bytes against MaxReadBytes; false when over.
func (w *walker) reserve(n int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.read+n > w.s.opts.MaxReadBytes {
		return false
	}
	w.read += n
	return true
}

// readFile reads rel without following a link at its place (it may have
// been swapped since the lstat) and returns the opened file's own stat.
func (w *walker) readFile(rel string) ([]byte, fs.FileInfo, error) {
	f, err := w.root.OpenFile(rel, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, errors.New("no longer a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, w.s.opts.MaxFileSize+1))
	if err == nil && int64(len(data)) > w.s.opts.MaxFileSize {
		err = fmt.Errorf("grew past %d MiB", w.s.opts.MaxFileSize>>20)
	}
	return data, fi, err
}

func (w *walker) keep(it Item) (entry, bool, error) {
	w.mu.Lock()
	full := w.ck.Files >= w.s.opts.MaxFiles
	if !full {
		w.ck.Files++
		w.ck.Bytes += it.Size
	}
	w.mu.Unlock()
	if full {
		w.notKept(it.Path, fmt.Sprintf("this checkpoint already keeps %d files", w.s.opts.MaxFiles), it.Size)
		return entry{}, false, nil
	}
	if it.Kind == File {
		w.perm(it)
	}
	return entry{name: path.Base(it.Path), mode: gitMode(it), id: it.ID}, true, nil
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
