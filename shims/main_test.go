package shims

import (
	"os"
	"testing"
)

// TestMain makes this test binary a shim when it runs under a shim's name
// (the tests link it into their shim directories), as main does.
func TestMain(m *testing.M) {
	MaybeRun()
	os.Exit(m.Run())
}
