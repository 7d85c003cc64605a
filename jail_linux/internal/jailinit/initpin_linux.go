//go:build linux

package jailinit

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// pinner pins the read-only paths inside the writable trees, so that
// nothing in the jail can create, replace, rename or delete them or the
// directories on the way to them:
//
//   - a path that exists is bound read-only over itself; a mount point
//     cannot be renamed or removed (EBUSY), and nothing in it written;
//   - each directory on the way (.git for .git/config, .github for
//     .github/workflows) is bound over itself, writable: still a mount
//     point, so `mv .git .git.orig` fails while git writes its index,
//     objects and refs as before;
//   - a missing path (or its first missing directory) has a placeholder
//     the supervisor created for the run (see placeholders), bound
//     read-only like any other;
//   - a symbolic link cannot be a mount point; its target is bound
//     read-only where it lies in a writable tree, and the link's directory
//     is handed to Landlock, which then lets nothing in it be removed,
//     renamed or replaced (new entries may be made; its subtrees stay
//     as writable as before).
//
// The writable trees themselves need no pinning: their parents are not
// writable.
type pinner struct {
	cfg    *Config
	bound  map[string]bool // directories bound over themselves
	linked []string        // symbolic links among the pinned names
}

func pinReadOnly(cfg *Config) error {
	p := pinner{cfg: cfg, bound: map[string]bool{}}
	for _, ro := range cfg.ReadOnly {
		if err := p.pin(ro); err != nil {
			return err
		}
	}
	cfg.pinnedLinks = p.linked
	return nil
}

func (p *pinner) pin(ro string) error {
	tree := TreeOf(ro, p.cfg.Writable)
	if tree == "" {
		return nil // not writable anyway
	}
	if tree == ro {
		return bindReadOnly(ro, true)
	}
	cur := tree
	parts := strings.Split(ro[len(tree)+1:], "/")
	for i, name := range parts {
		next := path.Join(cur, name)
		last := i == len(parts)-1
		var st unix.Stat_t
		if err := unix.Lstat(next, &st); err != nil {
			return fmt.Errorf("%w: protected %s is missing and has no placeholder", ErrInit, next)
		}
		switch typ := st.Mode & unix.S_IFMT; {
		case typ == unix.S_IFLNK:
			return p.pinLink(next)
		case last || typ != unix.S_IFDIR || slices.Contains(p.cfg.Placeholders, next):
			return bindReadOnly(next, true)
		}
		if err := p.bindSelf(next); err != nil {
			return err
		}
		cur = next
	}
	return nil
}

// bindSelf makes dir a mount point of its own, writable.
func (p *pinner) bindSelf(dir string) error {
	if p.bound[dir] {
		return nil
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", dir, err)
	}
	p.bound[dir] = true
	return nil
}

// pinLink protects the link's target where a writable tree holds it and
// leaves the link itself to Landlock (see pinner).
func (p *pinner) pinLink(link string) error {
	p.linked = append(p.linked, link)
	real, err := evalSymlinks(link)
	if err != nil || !InAny(real, p.cfg.Writable) {
		return nil // dangling, or pointing where the jail cannot write
	}
	return bindReadOnly(real, true)
}

// TreeOf is the innermost writable tree holding p, or "".
func TreeOf(p string, trees []string) string {
	best := ""
	for _, t := range trees {
		if (p == t || Within(p, t)) && len(t) > len(best) {
			best = t
		}
	}
	return best
}
