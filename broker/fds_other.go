//go:build unix && !linux

package broker

import "errors"

// closeRangeCloexec has no one-call form here: list the descriptors.
func closeRangeCloexec() error { return errors.ErrUnsupported }
