//go:build !windows

package policy

import (
	"errors"
	"syscall"
)

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// longPathName is only meaningful on Windows.
func longPathName(p string) (string, error) { return p, nil }

// expandShortNames is only meaningful on Windows.
func expandShortNames(p string, _ func(string) (string, error)) string { return p }
