//go:build darwin

package checkpoint

import (
	"io/fs"
	"syscall"
)

// statKeyOf is what the stat cache compares (see stat_linux.go).
func statKeyOf(fi fs.FileInfo) (statKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	return statKey{
		Size: fi.Size(), Mtime: fi.ModTime().UnixNano(),
		Ctime: st.Ctimespec.Sec*1e9 + st.Ctimespec.Nsec, Ino: st.Ino, Mode: uint32(fi.Mode()),
	}, true
}
