package claude

import "errors"

// ErrUnknownEvent is an event this hook is not installed for. Test with
// errors.Is; an event that cannot be understood is adapter.ErrBadInput.
var ErrUnknownEvent = errors.New("unknown hook event")
