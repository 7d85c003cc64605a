package broker_test

import (
	"os"
	"testing"

	"github.com/sandbox-dev/sandbox/launcher"
)

// TestMain doubles as the jail's init (the grant jail tests start real
// jails, whose init is this binary re-executed) and points XDG_STATE_HOME
// at a temporary directory: the broker never touches per-user state, and
// these tests make sure of it.
func TestMain(m *testing.M) {
	launcher.MaybeInit()
	if role := os.Getenv(roleVar); role != "" {
		os.Exit(runRole(role))
	}
	dir, err := os.MkdirTemp("", "broker-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
