//go:build !unix

package folder

// HoldApprover does nothing here: presence is only told on systems with
// flock(2); waiters then say nothing rather than something untrue.
func (f Folder) HoldApprover() (release func(), err error) { return func() {}, nil }

// ApproverWatching cannot tell on this system.
func (f Folder) ApproverWatching() Presence { return PresenceUnknown }
