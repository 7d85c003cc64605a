package checkpoint

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a kept path was.
type Kind int

const (
	File Kind = iota + 1
	Dir
	Link
)

func (k Kind) String() string {
	switch k {
	case File:
		return "file"
	case Dir:
		return "dir"
	case Link:
		return "link"
	}
	return "unknown"
}

// Item is one kept path: slash-separated and relative to the project
// root, with its kind, permission bits and (files and links) the blob of
// its content or link target.
type Item struct {
	Path string
	Kind Kind
	Perm fs.FileMode
	ID   ID
	Size int64
}

// Git tree modes. Git keeps only the executable bit of a file; the other
// permission bits live in the checkpoint's modes blob (see modesBlob).
const (
	modeFile = "100644"
	modeExec = "100755"
	modeLink = "120000"
	modeDir  = "40000"
)

func gitMode(it Item) string {
	switch {
	case it.Kind == Dir:
		return modeDir
	case it.Kind == Link:
		return modeLink
	case it.Perm&0o100 != 0:
		return modeExec
	}
	return modeFile
}

// defaultPerm is what a git mode implies; only other bits are recorded.
func defaultPerm(mode string) fs.FileMode {
	if mode == modeFile {
		return 0o644
	}
	return 0o755
}

// putTree writes a tree of ents (in any order) and returns its id and
// the bytes it added to the store.
func (s *Store) putTree(ents []entry) (ID, int64, error) {
	// Listings come sorted by name, which is git's order but for
	// directories: most need no sort at all.
	if !slices.IsSortedFunc(ents, treeCmp) {
		slices.SortFunc(ents, treeCmp)
	}
	n := 0
	for _, e := range ents {
		n += len(e.mode) + len(e.name) + 2 + len(e.id)
	}
	buf := make([]byte, 0, n)
	for _, e := range ents {
		buf = append(buf, e.mode...)
		buf = append(buf, ' ')
		buf = append(buf, e.name...)
		buf = append(buf, 0)
		buf = append(buf, e.id[:]...)
	}
	return s.put(kindTree, buf)
}

// treeCmp is git's order: a directory sorts as if its name ended in "/".
func treeCmp(a, b entry) int {
	n := min(len(a.name), len(b.name))
	if c := strings.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	return int(treeByte(a, n)) - int(treeByte(b, n))
}

// treeByte is the byte at i of e's sort key (0 past its end).
func treeByte(e entry, i int) byte {
	switch {
	case i < len(e.name):
		return e.name[i]
	case i == len(e.name) && e.mode == modeDir:
		return '/'
	}
	return 0
}

// sparseTree writes the root tree of a checkpoint from its targets and
// their parents (tops: path -> entry; a parent's id is computed here).
func (s *Store) sparseTree(tops map[string]entry, added *int64) (ID, error) {
	if e, ok := tops["."]; ok {
		return e.id, nil
	}
	kids := map[string][]string{} // dir -> child paths
	for p := range tops {
		d := path.Dir(p)
		kids[d] = append(kids[d], p)
	}
	var build func(dir string) (ID, error)
	build = func(dir string) (ID, error) {
		var ents []entry
		for _, p := range kids[dir] {
			e := tops[p]
			if e.mode == modeDir && e.id.IsZero() { // a parent of targets
				id, err := build(p)
				if err != nil {
					return ID{}, err
				}
				e.id = id
			}
			ents = append(ents, e)
		}
		id, a, err := s.putTree(ents)
		*added += a
		return id, err
	}
	return build(".")
}

// readTree lists every item under tree id, parents before children,
// prefixing paths with dir.
func (s *Store) readTree(id ID, dir string, out []Item) ([]Item, error) {
	data, err := s.get(kindTree, id)
	if err != nil {
		return nil, err
	}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+len(ID{}) {
			return nil, fmt.Errorf("checkpoint: tree %s: %w", id, ErrCorrupt)
		}
		mode, name := string(data[:sp]), string(data[sp+1:nul])
		var kid ID
		copy(kid[:], data[nul+1:])
		data = data[nul+1+len(kid):]
		if !validName(name) {
			return nil, fmt.Errorf("checkpoint: tree %s: name %q: %w", id, name, ErrCorrupt)
		}
		it := Item{Path: path.Join(dir, name), ID: kid, Perm: defaultPerm(mode)}
		switch mode {
		case modeDir:
			it.Kind = Dir
			out = append(out, it)
			if out, err = s.readTree(kid, it.Path, out); err != nil {
				return nil, err
			}
			continue
		case modeLink:
			it.Kind, it.Perm = Link, 0o777
		case modeFile, modeExec:
			it.Kind = File
		default:
			return nil, fmt.Errorf("checkpoint: tree %s: mode %q: %w", id, mode, ErrCorrupt)
		}
		out = append(out, it)
	}
	return out, nil
}

// validName refuses names that would leave the directory they are in.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// modesBlob records the permission bits that the git modes do not carry:
// "PERM PATH\x00" for each item whose bits differ from the default.
func modesBlob(items []Item) []byte {
	var buf bytes.Buffer
	for _, it := range items {
		if it.Kind != Link && it.Perm != defaultPerm(gitMode(it)) {
			buf.WriteString(strconv.FormatUint(uint64(it.Perm), 8) + " " + it.Path)
			buf.WriteByte(0)
		}
	}
	return buf.Bytes()
}

func parseModes(data []byte) (map[string]fs.FileMode, error) {
	out := map[string]fs.FileMode{}
	for _, rec := range bytes.Split(data, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		perm, p, ok := strings.Cut(string(rec), " ")
		n, err := strconv.ParseUint(perm, 8, 32)
		if !ok || err != nil || n&^0o777 != 0 {
			return nil, fmt.Errorf("checkpoint: modes: %w", ErrCorrupt)
		}
		out[p] = fs.FileMode(n) & fs.ModePerm
	}
	return out, nil
}
