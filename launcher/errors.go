package launcher

import "errors"

// Sentinel errors of the launcher.
var (
	// ErrDegraded is returned by Run when a layer is degraded or missing
	// on this machine and --allow-degraded does not name it.
	ErrDegraded = errors.New("jail layers are not enforced")
	// ErrLimits is returned for a negative limit, or a process limit below
	// policy.MinPIDs (the jail's init could not start).
	ErrLimits = errors.New("invalid jail limits")
	// ErrNoCommand is returned when Options.Argv is empty.
	ErrNoCommand = errors.New("no command to run")
	// ErrBadTarget is returned for a proxy destination that does not
	// normalise (bad port, non-ASCII name, disguised IP literal, ...).
	ErrBadTarget = errors.New("bad destination")
	// ErrSpecialAddress is returned when a name resolves to a loopback,
	// link-local or metadata address.
	ErrSpecialAddress = errors.New("a host name resolved to a loopback, link-local or metadata address")
)
