//go:build !linux

package live

import (
	"os"

	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// restricted reports whether the per-user state is out of this process's
// reach, which `sandbox run`'s jail ensures. Without no_new_privs to ask
// the kernel about, that is the fact that matters: a hook that can read
// the state uses it.
func restricted() bool {
	dir, err := userstate.DefaultDir()
	if err != nil {
		return true
	}
	_, err = os.Stat(dir)
	return err != nil && !os.IsNotExist(err)
}
