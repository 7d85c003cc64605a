//go:build linux

package jailinit

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// substitute binds each per-run copy over the file it stands for, first
// of all mounts: the copies live in the per-user state dir, which is
// hidden later. Both ends are opened without following links and must be
// regular files, so a link planted at Path cannot redirect the bind; the
// bind goes through the opened descriptors.
func substitute(subs []Substitute) error {
	for _, s := range subs {
		if err := substituteOne(s); err != nil {
			return fmt.Errorf("substitute %s: %w", s.Path, err)
		}
	}
	return nil
}

func substituteOne(s Substitute) (err error) {
	src, err := openRegular(s.Source)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	dst, err := openRegular(s.Path)
	if err != nil {
		return err
	}
	defer unix.Close(dst)
	return unix.Mount(fdPath(src), fdPath(dst), "", unix.MS_BIND, "")
}

// openRegular opens p as an O_PATH descriptor and checks it is a regular
// file (not a link, which O_NOFOLLOW opens as itself).
func openRegular(p string) (int, error) {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", p)
		}
		return -1, err
	}
	return fd, nil
}

func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
