//go:build linux

package jail_linux

import (
	"os"

	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
)

// The init's side of the jail lives in internal/jailinit, which imports
// little, so that the init runs from that package's initialisation,
// before the rest of the binary's packages (most of them, the
// containerd/cgroups chain, the policy engine and the CLI among them,
// are never used by an init) initialise. These are its protocol's names
// as the supervisor uses them.
type (
	initConfig = jailinit.Config
	errorMsg   = jailinit.ErrorMsg
)

const (
	initEnv     = jailinit.Env
	msgConfig   = jailinit.MsgConfig
	msgListener = jailinit.MsgListener
	msgForward  = jailinit.MsgForward
	msgReady    = jailinit.MsgReady
	msgError    = jailinit.MsgError
	msgExit     = jailinit.MsgExit
	exitSetup   = jailinit.ExitSetup
)

// MaybeInit runs the jail's init and exits when this process was started
// as one by Start; otherwise it returns at once. The init normally ran
// already, from jailinit's package initialisation; calling this first
// thing in main (and in TestMain of tests that start jails) keeps a
// binary that was initialised in another order correct.
func MaybeInit() {
	if os.Getenv(initEnv) == "1" {
		os.Exit(jailinit.Main())
	}
}
