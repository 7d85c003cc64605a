//go:build linux

package broker

import (
	"fmt"
	"os"
	"strconv"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"golang.org/x/sys/unix"
)

// workDir opens the working directory, checks that what was opened lies
// inside root, and returns a path to exactly that directory for the child's
// chdir (/proc/self/fd/N, valid in the child until it execs), so a rename or
// symlink swap after the check changes nothing. release closes the handle.
func workDir(root, dir string) (path string, release func(), err error) {
	rootReal, err := realRoot(root)
	if err != nil {
		return "", nil, err
	}
	want := dirArg(rootReal, dir)
	fd, err := unix.Open(want, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %s: %w", ErrCwd, want, err)
	}
	release = func() { unix.Close(fd) }
	fdPath := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := checkOpened(rootReal, fd, fdPath); err != nil {
		release()
		return "", nil, fmt.Errorf("%w: %s: %w", ErrCwd, want, err)
	}
	return fdPath, release, nil
}

// checkOpened finds where the open directory fd really is and checks that
// it is inside root and is the same directory as that path now names.
func checkOpened(root string, fd int, fdPath string) error {
	real, err := os.Readlink(fdPath)
	if err != nil {
		return err
	}
	if !folder.Within(root, real) {
		return fmt.Errorf("resolves to %s, outside the project %s", real, root)
	}
	var a, b unix.Stat_t
	if err := unix.Fstat(fd, &a); err != nil {
		return err
	}
	if err := unix.Stat(real, &b); err != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		return fmt.Errorf("directory moved or deleted while checked")
	}
	return nil
}
