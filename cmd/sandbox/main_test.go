package main

import (
	"os"
	"testing"

	"github.com/sandbox-dev/sandbox/launcher"
)

// TestMain doubles as the jail's init: the approver commands these tests
// run as real processes (the test binary, see TestApproverMain) start the
// grant jails of approved commands by re-executing themselves.
func TestMain(m *testing.M) {
	launcher.MaybeInit()
	os.Exit(m.Run())
}
