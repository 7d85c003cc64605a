//go:build linux

package jailinit

import "errors"

// Sentinel errors of the Linux jail (jail_linux gives them out as its own).
var (
	// ErrLayer is returned when a layer the spec asks for cannot be
	// applied on this machine.
	ErrLayer = errors.New("jail layer unavailable")
	// ErrInit is returned when the jail's init failed before starting
	// the command; the message carries the init's own error.
	ErrInit = errors.New("jail init failed")
	// ErrSpec is returned for a spec the jail cannot honour as written.
	ErrSpec = errors.New("bad jail spec")
)
