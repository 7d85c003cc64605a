//go:build linux

package jailinit

import (
	"os"
	"path"
	"strings"
	"syscall"
)

// carve grants access on root minus the trees in deny. Landlock rights
// are inherited by a whole hierarchy and cannot be taken back below, so a
// denied path inside root is cut out by granting root's entries one by
// one instead of root, recursing along the way to each denied path. The
// directories on the way get only the rights in onPath (read carving keeps
// listing them; write carving gives none: nothing can be created or removed
// directly in a directory on the way to a denied path). Symbolic
// links are skipped: a link grants nothing; its target is granted (or not)
// where it lives.
func (g *grants) carve(root string, deny []string, access, onPath uint64) {
	var inside []string
	for _, d := range deny {
		if d == root {
			return
		}
		if Within(d, root) {
			inside = append(inside, d)
		}
	}
	if len(inside) == 0 {
		g.add(root, access)
		return
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	if onPath != 0 {
		g.add(root, onPath)
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		g.carve(path.Join(root, e.Name()), inside, access, onPath)
	}
}

// Within reports whether path lies strictly below dir (both clean and
// absolute).
func Within(path, dir string) bool {
	if dir == "/" {
		return path != "/" && strings.HasPrefix(path, "/")
	}
	return strings.HasPrefix(path, dir+"/")
}

// evalSymlinks resolves every symbolic link on the way to p, as
// filepath.EvalSymlinks does, of which it is a small copy of our own:
// path/filepath initialises late (see init), and a relative p is taken
// from the working directory and comes back absolute.
func evalSymlinks(p string) (string, error) {
	if !path.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		p = path.Join(wd, p)
	}
	const maxLinks = 255
	done, rest := "/", p
	for links := 0; ; {
		rest = strings.TrimLeft(rest, "/")
		if rest == "" {
			return done, nil
		}
		name, after, more := strings.Cut(rest, "/")
		rest = after
		switch name {
		case ".":
			continue
		case "..":
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			if !fi.IsDir() && more { // a file with a slash after it
				return "", &os.PathError{Op: "lstat", Path: next, Err: syscall.ENOTDIR}
			}
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", &os.PathError{Op: "evalSymlinks", Path: p, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			done = "/"
		}
		if more {
			target += "/" + rest
		}
		rest = target
	}
}

// splitList is filepath.SplitList (see evalSymlinks).
func splitList(list string) []string {
	if list == "" {
		return []string{}
	}
	return strings.Split(list, ":")
}
