package jailspec

import (
	"context"
	"net"
	"os"
)

// Process is a started jail. Its methods are safe for concurrent use.
type Process interface {
	// Pid is the host pid of the jail's init (the process the supervisor
	// forwards signals to).
	Pid() int
	// Signal forwards sig to the jailed command's process group.
	Signal(sig os.Signal) error
	// ProxyListener is the listening socket the jail's init opened on
	// 127.0.0.1:Net.ProxyPort inside the jail's network namespace, for
	// the supervisor's proxy to serve; nil without a network namespace.
	ProxyListener() net.Listener
	// Forwards are the listening sockets the jail's init opened for
	// Net.Forward (one per port and loopback address, 127.0.0.1 and,
	// where the kernel has IPv6, ::1), for the supervisor to relay; nil
	// without a network namespace.
	Forwards() []net.Listener
	// Wait waits for the jailed command to end, then kills whatever is
	// left in the jail and releases it. Cancelling ctx kills the jail
	// at once and still waits for it.
	Wait(ctx context.Context) (ExitStatus, error)
	// Kill kills every process in the jail; Wait still has to be called.
	Kill() error
}

// ExitStatus is how the jailed command ended.
type ExitStatus struct {
	Code      int  // exit code; 128+signal when killed by a signal
	Signal    int  // the signal that killed it, 0 if it exited
	OOMKilled bool // the cgroup saw an OOM kill during the run
	PidsLimit bool // the cgroup refused a fork at the pids limit
}
