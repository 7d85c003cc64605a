//go:build unix

package launcher

import (
	"os"
	"syscall"
)

// forwardedSignals are relayed to the jailed command when
// Options.ForwardSignals is set.
var forwardedSignals = []os.Signal{
	syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH,
}
