//go:build linux

// Package initsig starts the jail init's signal registration while the
// process is still initialising its packages. os/signal's first Notify
// starts a thread and round-trips with it for each signal, about 1 ms for
// the nine the init forwards on this machine; begun here, that overlaps
// the rest of the binary's package initialisation instead of preceding
// the jail's set-up. jail_linux.MaybeInit takes the result.
package initsig

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// Env marks a process started as the jail's init.
const Env = "SANDBOX_JAIL_INIT"

// Forwarded are the signals the init passes on to the command's process
// group (SIGURG is the Go runtime's own and is never forwarded).
var Forwarded = []os.Signal{
	unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM, unix.SIGUSR1,
	unix.SIGUSR2, unix.SIGWINCH, unix.SIGCONT, unix.SIGALRM,
}

var (
	ch     chan os.Signal
	caught chan struct{}
)

func init() {
	if os.Getenv(Env) == "1" {
		ch, caught = Start()
	}
}

// Start registers Forwarded on a new channel in the background; caught
// is closed once they are caught.
func Start() (c chan os.Signal, done chan struct{}) {
	c, done = make(chan os.Signal, 32), make(chan struct{})
	go func() {
		signal.Notify(c, Forwarded...)
		close(done)
	}()
	return c, done
}

// Started returns the registration begun at initialisation, or starts
// one now when there was none.
func Started() (c chan os.Signal, done chan struct{}) {
	if ch == nil {
		return Start()
	}
	return ch, caught
}
