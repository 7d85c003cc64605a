package hookd

import "errors"

// ErrFallback: the sender's output cannot be shared with a jail from
// here (a socket, a file not opened for appending, another system); the
// shell must jail the command itself. Nothing ran.
var ErrFallback = errors.New("hookd: the shell's output cannot be reopened here")

// ErrPeer: the connection does not come from the process the request
// names, or that process is not one of this user's unjailed processes.
var ErrPeer = errors.New("hookd: the request's sender is not the process it names")
