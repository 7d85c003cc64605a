//go:build !windows

package policy

import (
	"errors"
	"io/fs"
	"syscall"
)

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// longPathName is only meaningful on Windows.
func longPathName(p string) (string, error) { return p, nil }

// expandShortNames is only meaningful on Windows.
func expandShortNames(p string, _ func(string) (string, error)) string { return p }

// linkLike reports whether the name Lstat described as fi is a link.
func linkLike(_ string, fi fs.FileInfo) bool { return fi.Mode()&fs.ModeSymlink != 0 }
