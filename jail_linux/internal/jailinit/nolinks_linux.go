//go:build linux

package jailinit

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// noLinks holds the writable trees that must be reached without any
// symbolic link (the spec's FS.NoLinks: the shared repository's objects,
// refs and the worktree's own dir of a jail rooted in a linked git
// worktree), each opened with RESOLVE_NO_SYMLINKS just before Landlock
// takes its rules, which then name the open directory
// (/proc/self/fd/N) rather than the path: a link swapped in after the
// launcher's check (by a jail that can write the repository's .git)
// makes the start fail instead of granting where the link leads.
type noLinks struct {
	trees []string
	fds   []int
}

func openNoLinks(trees []string) (nl noLinks, err error) {
	defer func() {
		if err != nil {
			nl.close()
		}
	}()
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for _, t := range trees {
		fd, err := unix.Openat2(unix.AT_FDCWD, t, &how)
		if err != nil {
			return nl, fmt.Errorf("%w: writable %s must be a directory reached without a symbolic link: %v", ErrSpec, t, err)
		}
		nl.trees, nl.fds = append(nl.trees, t), append(nl.fds, fd)
	}
	return nl, nil
}

// rewrite turns p, when it is one of the trees or lies below one, into
// the same path from the open directory.
func (nl noLinks) rewrite(p string) string {
	best := -1
	for i, t := range nl.trees {
		if (p == t || Within(p, t)) && (best < 0 || len(t) > len(nl.trees[best])) {
			best = i
		}
	}
	if best < 0 {
		return p
	}
	return "/proc/self/fd/" + strconv.Itoa(nl.fds[best]) + strings.TrimPrefix(p, nl.trees[best])
}

func (nl noLinks) close() {
	for _, fd := range nl.fds {
		_ = unix.Close(fd)
	}
}
