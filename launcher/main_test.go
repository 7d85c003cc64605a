package launcher

import (
	"os"
	"testing"
)

// TestMain doubles as the jail's init (MaybeInit) and, inside a jail, as
// the probe program the jail tests run (see jailprobe_linux_test.go).
func TestMain(m *testing.M) {
	MaybeInit()
	if code, ok := helperMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
