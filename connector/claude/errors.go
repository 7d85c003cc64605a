package claude

import "errors"

// Sentinel errors. Test with errors.Is.
var (
	// ErrBadInput is an event that cannot be read, decoded or understood.
	ErrBadInput = errors.New("bad hook input")
	// ErrUnknownEvent is an event this hook is not installed for.
	ErrUnknownEvent = errors.New("unknown hook event")
)
