package queue

import (
	"errors"
	"fmt"
)

var (
	// ErrQueueFull is returned by Submit when the folder already holds the
	// maximum number of pending requests.
	ErrQueueFull = errors.New("too many pending requests")
	// ErrAlreadyClaimed is returned by Claim when another approver (or a
	// withdrawing waiter, or expiry) took the request first.
	ErrAlreadyClaimed = errors.New("request already claimed")
	// ErrNotFound is returned when a request or result does not exist.
	ErrNotFound = errors.New("no such request")
	// ErrInvalid is returned for a request or result that fails validation.
	ErrInvalid = errors.New("invalid request")
	// ErrBadFile is returned for a queue file that fails reader hygiene
	// (a link, not a regular file, several links, too big, bad schema); the
	// file has been moved to quarantine/.
	ErrBadFile = errors.New("bad queue file")
	// ErrForged is returned for a result whose MAC does not verify with
	// the per-user key (or that has none): someone other than the trusted
	// side wrote it. It also matches ErrBadFile; the file is quarantined.
	ErrForged = errors.New("forged result (not written by an approver holding the per-user key)")
	// ErrDenied is returned by (*Claim).Begin when a deny won the race
	// against this approval; the request has been completed as denied.
	ErrDenied = errors.New("request was denied")
	// ErrAlreadyRunning is returned by Deny when the request is already
	// executing: too late to deny it.
	ErrAlreadyRunning = errors.New("request is already running")
	// ErrClaimClosed is returned when a Claim is used after Complete or
	// Release.
	ErrClaimClosed = errors.New("claim already completed or released")
	// ErrUnsafeLayout is returned by Open when a queue directory is a link
	// or not a directory.
	ErrUnsafeLayout = errors.New("unsafe queue directory")
)

// ValidationError says which rule a request or result broke.
type ValidationError struct {
	Field  string
	Reason string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid request: %s: %s", e.Field, e.Reason)
}

// Is makes every ValidationError match ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
