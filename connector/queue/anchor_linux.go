//go:build linux

package queue

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// anchor opens directory d without following a link (its last
// component; the ones above it are the jail's mount points) and returns
// a path that reaches that directory, not whatever is at d later:
// /proc/self/fd/N of the open directory. The jail may rename and replace
// its holes (escalations/tmp and pending) at any time, and the trusted
// side deletes and moves files in them; through the anchor it touches
// only the directory it checked. Without /proc the plain path is used.
func anchor(d string) (string, *os.File, error) {
	fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return "", nil, fmt.Errorf("%s: %w", d, ErrUnsafeLayout)
		}
		return "", nil, fmt.Errorf("queue dir: %w", err)
	}
	f := os.NewFile(uintptr(fd), d)
	p := "/proc/self/fd/" + strconv.Itoa(fd)
	var a, b unix.Stat_t
	if unix.Fstat(fd, &a) != nil || unix.Stat(p, &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		f.Close()
		return d, nil, nil
	}
	return p, f, nil
}
