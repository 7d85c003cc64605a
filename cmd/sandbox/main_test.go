package main

import (
	"os"
	"path/filepath"
	"runtime"
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
//
// No test may come upon a per-user state it was not given: a test that
// runs sandbox processes hands each one its project's state (stateEnv),
// and one that runs sandbox code in its own process sets it (t.Setenv,
// testenv.UseState). So the environment's default points nowhere usable; a state
// found there would be the real user's, and a test that ran in parallel
// with another's t.Setenv could pick up that one's.
func TestMain(m *testing.M) {
	launcher.MaybeInit()
	if os.Getenv(approverMainVar) == "1" {
		// an approver process needs no script commands: testscript.Main
		// would make it a temporary dir of them, which the tests that
		// kill approvers (kill -9) left behind by the thousand
		os.Exit(m.Run())
	}
	if filepath.Base(os.Args[0]) != "sandbox" && runtime.GOOS != "windows" {
		os.Setenv("XDG_STATE_HOME", "/dev/null/no-per-user-state-in-tests")
	}
	testscript.Main(m, map[string]func(){"sandbox": main, "porthelper": portHelperMain})
}
