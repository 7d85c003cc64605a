//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || windows)

package audit

import (
	"errors"
	"os"
)

// tryLock is not implemented here: appends fail closed.
func tryLock(*os.File, bool) (bool, error) { return false, errors.ErrUnsupported }

func unlock(*os.File) error { return errors.ErrUnsupported }

func lockBlocking(*os.File, bool) error { return errors.ErrUnsupported }
