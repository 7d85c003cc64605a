//go:build unix && !linux

package broker

import "golang.org/x/sys/unix"

// openBeneath has no single-call form here: the caller walks.
func openBeneath(base int, dirs []string, inside bool) (int, error) { return -1, unix.ENOSYS }
