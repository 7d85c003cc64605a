//go:build unix

package broker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinkHops bounds how many trusted links one walk follows.
const maxLinkHops = 40

// linkTrust says whether a symbolic link may be followed.
type linkTrust func(st *unix.Stat_t) bool

// systemLink trusts a link owned by root when the broker is not root: an
// agent running as the user cannot have planted it.
func systemLink(st *unix.Stat_t) bool { return st.Uid == 0 && os.Geteuid() != 0 }

// openParent opens t's parent directory for writing into, following no
// link below root (none at all inside it), creating missing directories
// when mkdir is set.
func (t target) openParent(mkdir bool) (int, error) {
	base, err := unix.Open(t.base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", t.base, err)
	}
	if len(t.dirs) == 0 {
		return base, nil
	}
	fd, err := openBeneath(base, t.dirs, t.inside)
	switch {
	case err == nil:
		unix.Close(base)
		return fd, nil
	case errors.Is(err, unix.ELOOP) && t.inside:
		unix.Close(base)
		return -1, fmt.Errorf("%w: a directory on the way is a link", ErrSymlink)
	case errors.Is(err, unix.ENOENT) && !mkdir:
		unix.Close(base)
		return -1, fmt.Errorf("directory %s: %w", filepath.Dir(t.abs), err)
	}
	// No openat2, a missing directory to create, or a link outside root:
	// walk one component at a time.
	var trust linkTrust
	if !t.inside {
		trust = systemLink
	}
	return walk(base, t.base, t.dirs, mkdir, trust)
}

// walk opens dirs below fd (whose path is at) one component at a time with
// O_NOFOLLOW, consuming fd. A link is refused unless trust allows it; a
// trusted link's target is walked again from "/" under the same rules.
func walk(fd int, at string, dirs []string, mkdir bool, trust linkTrust) (int, error) {
	hops := 0
	for i := 0; i < len(dirs); i++ {
		next, err := openDirAt(fd, dirs[i], mkdir)
		if err == nil {
			unix.Close(fd)
			fd, at = next, filepath.Join(at, dirs[i])
			continue
		}
		link, err := trustedLink(fd, dirs[i], trust, err)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("%s: %w", filepath.Join(at, dirs[i]), err)
		}
		if hops++; hops > maxLinkHops {
			return -1, fmt.Errorf("%w: too many links", ErrSymlink)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(at, link)
		}
		dirs = append(splitPath(strings.TrimPrefix(filepath.Clean(link), "/")), dirs[i+1:]...)
		if fd, err = unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			return -1, err
		}
		at, i = "/", -1
	}
	return fd, nil
}

// openDirAt opens the directory name in fd without following a link,
// creating it (mode 0755) when missing and mkdir is set.
func openDirAt(fd int, name string, mkdir bool) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	next, err := unix.Openat(fd, name, flags, 0)
	if !errors.Is(err, unix.ENOENT) || !mkdir {
		return next, err
	}
	if err := unix.Mkdirat(fd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, err
	}
	if os.Geteuid() == 0 {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil {
			unix.Fchownat(fd, name, int(st.Uid), int(st.Gid), unix.AT_SYMLINK_NOFOLLOW)
		}
	}
	return unix.Openat(fd, name, flags, 0)
}

// trustedLink explains why name in fd could not be opened as a directory:
// it returns the target of a link that trust allows, or an error.
func trustedLink(fd int, name string, trust linkTrust, openErr error) (string, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "", openErr
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFLNK {
		return "", openErr
	}
	if trust == nil || !trust(&st) {
		return "", fmt.Errorf("%w: a directory on the way is a link", ErrSymlink)
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(fd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}
