//go:build linux

package jail_linux

import "github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"

// Sentinel errors of the Linux jail, shared with its init.
var (
	// ErrLayer is returned when a layer the spec asks for cannot be
	// applied on this machine.
	ErrLayer = jailinit.ErrLayer
	// ErrInit is returned when the jail's init failed before starting
	// the command; the message carries the init's own error.
	ErrInit = jailinit.ErrInit
	// ErrSpec is returned for a spec the jail cannot honour as written.
	ErrSpec = jailinit.ErrSpec
)

// InitError is a failure of the jail's init before the command ran. Code
// is the init's exit status: 127 when the command was not found, 126 when
// it could not be executed, 125 for any other set-up failure; -1 when the
// init did not run at all.
type InitError struct {
	Code int
	Msg  string
}

func (e *InitError) Error() string { return "jail init: " + e.Msg }

// ExitCode is Code, for callers that cannot import this package.
func (e *InitError) ExitCode() int { return e.Code }

// Unwrap makes errors.Is(err, ErrInit) hold.
func (e *InitError) Unwrap() error { return ErrInit }
