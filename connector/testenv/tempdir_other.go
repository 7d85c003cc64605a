//go:build !windows

package testenv

import "testing"

// TempDir is t.TempDir. On Windows it is a directory that the test's
// clean-up removes even under Wine, where t.TempDir's clean-up fails.
func TempDir(t testing.TB) string {
	t.Helper()
	return t.TempDir()
}
