//go:build unix && !linux

package agents

import "errors"

// rawMode: agents run on Linux only (their jail); elsewhere attach keeps
// the terminal as it is.
func rawMode(int) (func(), error) { return nil, errors.ErrUnsupported }

func termSize(int) (int, int) { return 0, 0 }
