//go:build linux

package checkpoint

import (
	"io/fs"
	"syscall"
)

// statKeyOf is what the stat cache compares: size, mtime, ctime, inode
// and mode, as git's index does. The ctime cannot be set by a user, so a
// file rewritten with the same size and a forged mtime still misses.
func statKeyOf(fi fs.FileInfo) (statKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	return statKey{
		Size: fi.Size(), Mtime: fi.ModTime().UnixNano(),
		Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec, Ino: st.Ino, Mode: uint32(fi.Mode()),
	}, true
}
