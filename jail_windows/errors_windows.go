//go:build windows

package jail_windows

import "errors"

// Sentinel errors of the Windows jail.
var (
	// ErrLayer is returned when the spec asks for a layer that Windows
	// does not have (Landlock, seccomp, namespaces, ...).
	ErrLayer = errors.New("jail layer unavailable on Windows")
	// ErrSpec is returned for a spec the jail cannot honour as written.
	ErrSpec = errors.New("bad jail spec")
	// ErrJob is returned when the Job Object cannot be created, limited
	// or entered.
	ErrJob = errors.New("job object")
	// ErrNotFound is returned when the command is on no entry of the
	// jail's PATH.
	ErrNotFound = errors.New("command not found on the jail's PATH")
)

// StartError is a failure to start the command. Code is the exit status
// `sandbox run` reports, as on Linux: 127 when the command was not found,
// 126 when it could not be executed, 125 for any other set-up failure.
type StartError struct {
	Code int
	Err  error
}

func (e *StartError) Error() string { return "jail start: " + e.Err.Error() }

// ExitCode is Code, for callers that cannot import this package.
func (e *StartError) ExitCode() int { return e.Code }

func (e *StartError) Unwrap() error { return e.Err }

// Exit codes of StartError.
const (
	codeSetup    = 125
	codeNoExec   = 126
	codeNotFound = 127
	// KilledCode is the exit code of a command killed with its jail
	// (Kill, or a cancelled Wait): 128+SIGKILL, as on Linux.
	KilledCode = 137
)
