package audit

import (
	"fmt"
	"os"
)

// openRegular opens path without following a final symlink and insists on
// a regular file, so no link planted in .sandbox/audit/ redirects a write.
func openRegular(path string, flag int, perm os.FileMode) (f *os.File, err error) {
	f, err = openNoFollow(path, flag, perm)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("audit: %s is not a regular file (%v)", path, fi.Mode().Type())
	}
	return f, nil
}
