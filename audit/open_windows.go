//go:build windows

package audit

import (
	"fmt"
	"os"
)

// openNoFollow refuses a path that is a symlink or another reparse point,
// then opens it; openRegular checks that what was opened is a regular file.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
		return nil, fmt.Errorf("%s is a link or reparse point", path)
	}
	return os.OpenFile(path, flag, perm)
}
