//go:build !unix && !windows

package audit

import "os"

// openNoFollow has no way to refuse a final symlink here; openRegular
// still insists on a regular file.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
