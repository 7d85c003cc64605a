//go:build linux

package jail_linux

import (
	"os"
	"path/filepath"
	"strings"
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
		if within(d, root) {
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
		g.carve(filepath.Join(root, e.Name()), inside, access, onPath)
	}
}

// within reports whether path lies strictly below dir (both clean and
// absolute).
func within(path, dir string) bool {
	if dir == "/" {
		return path != "/" && strings.HasPrefix(path, "/")
	}
	return strings.HasPrefix(path, dir+"/")
}
