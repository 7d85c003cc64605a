//go:build windows

package store

import "os"

// openRegular opens path for reading (readSmall checks that it is the
// regular file it inspected).
func openRegular(path string) (*os.File, error) { return os.Open(path) }
