//go:build unix

package queue

import (
	"syscall"
	"testing"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	mustOK(t, syscall.Mkfifo(path, 0o644))
}
