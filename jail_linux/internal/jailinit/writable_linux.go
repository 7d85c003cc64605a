//go:build linux

package jailinit

import (
	"fmt"
	"os"
	"path"
	"strings"
)

// CheckWritable refuses a writable tree reached through a symbolic link
// that a jail could have planted: a link whose own directory lies in a
// writable tree of this spec or in a shared scratch dir. A $TMPDIR in the
// project that one run replaced with a link to ~/.ssh would otherwise make
// ~/.ssh writable in the next. Links of the system (/var/run, a /home
// that points elsewhere, a ~/.claude linked into a dotfiles repository)
// lie in directories no jail can write and are followed. The supervisor
// checks before it creates anything for the jail, and the init again
// just before it mounts and grants.
func CheckWritable(writable []string) error { return checkWritableIn(writable, tmpRoots) }

func checkWritableIn(writable, scratch []string) error {
	trees := append(append([]string{}, writable...), scratch...)
	for _, w := range writable {
		if r, err := evalSymlinks(w); err == nil && r != w {
			trees = append(trees, r)
		}
	}
	for _, w := range writable {
		if link := plantedLink(w, trees); link != "" {
			return fmt.Errorf("%w: writable %s goes through the symbolic link %s, in a directory a jail can write (it could have planted it): remove the link or name the real path", ErrSpec, w, link)
		}
	}
	return nil
}

// plantedLink returns the first symbolic link on the way to p whose
// directory lies in one of trees, or "".
func plantedLink(p string, trees []string) string {
	cur := "/"
	for _, name := range strings.Split(p, "/") {
		if name == "" {
			continue
		}
		next := path.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return "" // missing: nothing is granted there
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if InAny(cur, trees) {
			return next
		}
		if cur, err = evalSymlinks(next); err != nil {
			return ""
		}
	}
	return ""
}
