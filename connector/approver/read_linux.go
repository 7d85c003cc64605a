//go:build linux

package approver

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNoLinks opens path with openat2(RESOLVE_NO_SYMLINKS), so that the
// kernel refuses a link in any component; kernels without openat2 get the
// portable check.
func openNoLinks(path string) (*os.File, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case errors.Is(err, unix.ENOSYS):
		return openNoLinksPortable(path)
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("%s: a symbolic link in the path: %w", path, ErrNotRegular)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

func linkCount(fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}
