//go:build linux

package jailinit

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// hider hides trees from the jail. The first hidden directory gets an
// empty, read-only, mode-000 tmpfs with a single inode (its root); every
// other one gets a bind of that mount, which keeps its read-only,
// nosuid, nodev and noexec flags: one superblock for all of them. A path
// that already shows that tmpfs (an alias through a symbolic link, such
// as /var/run/dbus for /run/dbus) is hidden already and gets nothing
// more. Anything but a directory gets /dev/null, read-only (a socket:
// connecting then fails).
type hider struct {
	first string // the first hidden directory, "" before it
	dev   uint64 // the device of its tmpfs
}

func (h *hider) hide(p string) error {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil // absent (or a link, whose target is hidden where it lives): nothing to hide
	}
	var err error
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		err = hideFile(p)
	case h.first == "":
		err = h.mountFirst(p)
	case st.Dev == h.dev:
		return nil // the hidden tmpfs's only inode: already hidden
	default:
		err = unix.Mount(h.first, p, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("hide %s: %w", p, err)
	}
	return nil
}

func (h *hider) mountFirst(p string) error {
	err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC,
		"size=4k,nr_inodes=1,mode=000")
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return err
	}
	h.first, h.dev = p, st.Dev
	return nil
}

func hideFile(p string) error {
	if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	return remountReadOnly(p)
}
