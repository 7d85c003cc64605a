package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/sandbox-dev/sandbox/launcher"
)

// TestMain doubles as the jail's init: the approver commands these tests
// run as real processes (the test binary, see TestApproverMain) start the
// grant jails of approved commands by re-executing themselves. It also
// serves as the `sandbox` command of the CLI contract scripts
// (testdata/script, TestScript): testscript puts a copy of this binary
// named sandbox on their PATH, and that copy runs main.
func TestMain(m *testing.M) {
	launcher.MaybeInit()
	testscript.Main(m, map[string]func(){"sandbox": main})
}
