package shims

import "errors"

// Sentinel errors of the shims.
var (
	// ErrNotFound is returned when the real tool is on no PATH entry
	// other than the shim directory.
	ErrNotFound = errors.New("the real tool is not on PATH (outside the shim directory)")
	// ErrBadName is returned for a shim name that is not a plain command
	// name.
	ErrBadName = errors.New("not a valid shim name")
	// ErrNoPolicy is returned when the shim cannot read the policy cache
	// that `sandbox run` writes for it.
	ErrNoPolicy = errors.New("no policy cache for the shims (written by `sandbox run`)")
)
