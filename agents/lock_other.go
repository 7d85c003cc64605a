//go:build !unix

package agents

import (
	"errors"
	"os"
)

// tryLock: agents run detached supervisors with flock(2)-based liveness,
// which this OS does not have.
func tryLock(*os.File, bool) (bool, error) { return false, errors.ErrUnsupported }
