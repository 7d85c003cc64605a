//go:build linux

package jail_linux

import (
	"os"
	"testing"
)

// TestMain doubles as the jail's init for the tests that start jails.
func TestMain(m *testing.M) {
	MaybeInit()
	os.Exit(m.Run())
}
