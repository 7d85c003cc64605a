package filestamp

import (
	"os"
	"syscall"
)

// sysStamp is a file's device, inode and change time.
func sysStamp(fi os.FileInfo, mtime int64) (dev, ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, mtime
	}
	return st.Dev, st.Ino, st.Ctim.Sec*1e9 + st.Ctim.Nsec
}
