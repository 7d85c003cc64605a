package store

import "errors"

// Sentinel errors. Test with errors.Is.
var (
	// ErrNotAccepted is returned when a folder has no valid accepted policy.
	ErrNotAccepted = errors.New("no accepted policy")
	// ErrBadRecord is returned when a signed record in the per-user state
	// dir is missing its signature, fails it, or does not match its data.
	ErrBadRecord = errors.New("state record is unsigned, tampered or inconsistent")
	// ErrNotFound is returned for a remembered decision ID that names none.
	ErrNotFound = errors.New("no such remembered decision")
)
