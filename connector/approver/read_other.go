//go:build !linux

package approver

import "os"

func openNoLinks(path string) (*os.File, error) { return openNoLinksPortable(path) }

// linkCount is not known portably here; the broker's write path checks
// links on Windows.
func linkCount(os.FileInfo) (uint64, bool) { return 0, false }
