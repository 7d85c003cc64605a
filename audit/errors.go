package audit

import "errors"

var (
	// ErrAppend means an audit record could not be written. The caller
	// must refuse the action the record was about.
	ErrAppend = errors.New("audit record not written; the action is refused")

	// ErrInvalidEntry means an Entry breaks the record schema (a bug in
	// the caller); it is never written.
	ErrInvalidEntry = errors.New("invalid audit entry")

	// ErrLockTimeout means another process held the audit lock for longer
	// than the lock timeout.
	ErrLockTimeout = errors.New("timed out waiting for the audit lock")

	// ErrClosed is returned by Append after Close.
	ErrClosed = errors.New("audit log is closed")

	// ErrNoKey means the per-user state has no HMAC key to sign or check
	// records with.
	ErrNoKey = errors.New("no per-user audit key")
)

// ErrBadAnchor means the anchored head in the per-user state is unreadable
// or its HMAC does not match.
var ErrBadAnchor = errors.New("audit anchor is corrupt or forged")
