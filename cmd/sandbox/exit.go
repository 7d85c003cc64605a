package main

import (
	"errors"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// Exit codes shared by every command. Commands with a richer contract
// (check, request, result, hook) return an *exitError with their own code.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitNoDir   = 3
	// exitNotHuman: a command that decides (approve, deny, watch, serve,
	// policy accept, restore) was started from inside a jail or from an
	// agent's process tree; it did nothing. 4 is run --ci's (run_bus.go).
	exitNotHuman = 5
)

// exitError carries a specific exit code out of a command. msg, when not
// empty, is printed on stderr; an empty msg exits quietly.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string {
	if e.msg == "" {
		return "exit status"
	}
	return e.msg
}

// exitWith returns an error that makes the process exit with code and
// print nothing more.
func exitWith(code int) error { return &exitError{code: code} }

// exitCode is the one place that maps errors to exit codes.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, folder.ErrNotFound):
		return exitNoDir
	case errors.Is(err, approver.ErrNotHuman):
		return exitNotHuman
	case isUsageError(err):
		return exitUsage
	}
	return exitFailure
}
