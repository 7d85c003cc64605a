//go:build unix

package shims

import (
	"os"
	"syscall"
)

const exeSuffix = ""

// selfInfo identifies this executable: /proc/self/exe on Linux (the
// target of the link the shell ran), os.Executable elsewhere.
func selfInfo() os.FileInfo {
	if fi, err := os.Stat("/proc/self/exe"); err == nil {
		return fi
	}
	p, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, _ := os.Stat(p)
	return fi
}

func executable(fi os.FileInfo) bool { return fi.Mode().Perm()&0o111 != 0 }

// execTool replaces this process with the real tool; it returns only on
// failure.
func execTool(path string, argv []string) error {
	return syscall.Exec(path, argv, os.Environ())
}
