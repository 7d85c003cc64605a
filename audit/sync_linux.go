//go:build linux

package audit

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync makes f's data (and the size needed to read it) durable.
func datasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
