//go:build !linux && !darwin

package checkpoint

import "io/fs"

// statKeyOf: without a ctime that users cannot set, a cached id could be
// reused for a file rewritten with a forged mtime, so nothing is cached
// and every file is read.
func statKeyOf(fs.FileInfo) (statKey, bool) { return statKey{}, false }
