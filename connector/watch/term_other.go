//go:build !linux

package watch

import "errors"

// Single-key input is implemented on Linux; elsewhere `sandbox watch`
// reads whole lines, as with --plain.

// IsTerminal reports false: see rawMode.
func IsTerminal(int) bool { return false }

func rawMode(int) (func(), error) { return nil, errors.ErrUnsupported }

func flushInput(int) {}

func termSize(int) (int, int) { return 0, 0 }
