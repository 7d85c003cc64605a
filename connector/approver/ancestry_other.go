//go:build !linux

package approver

// Ancestry is not read on this system: only the environment markers are
// checked there.
func Ancestry(pid int) []Process { return nil }
