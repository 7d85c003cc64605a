//go:build windows

package gitworktree

import (
	"fmt"
	"os"
)

// openNoFollow opens path for reading, refusing a link (Windows has no
// O_NOFOLLOW).
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a link", path)
	}
	return os.Open(path)
}
