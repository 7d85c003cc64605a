//go:build !linux

package audit

import "os"

// datasync makes f's data durable (fsync, FlushFileBuffers on Windows).
func datasync(f *os.File) error { return f.Sync() }
