package broker

import (
	"context"
	"errors"
	"os"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// ErrNoJail: this machine cannot build the jail asked for (no Landlock,
// no user namespaces, no cgroup). The broker then runs the command the
// way it can, and says so.
var ErrNoJail = errors.New("broker: no jail on this machine")

// Jailer starts approved commands in jails: launcher.GrantJail, which
// builds the project jail of `sandbox run` and widens it by the grant.
// (The broker cannot import the launcher, which imports the approver,
// which imports the broker; the launcher implements this instead.)
type Jailer interface {
	// Start starts c and returns once it runs. An error wrapping
	// ErrNoJail means nothing was started because the jail cannot be
	// built here.
	Start(ctx context.Context, c JailCommand) (jailspec.Process, error)
}

// JailCommand is one command for a Jailer.
type JailCommand struct {
	Argv []string // Argv[0] is an absolute path
	Dir  string   // absolute
	Env  []string

	Stdin          *os.File // nil: the null device
	Stdout, Stderr *os.File

	Grant Grant
	// Bare asks for no jail at all, only a cgroup of its own (killed whole
	// at the end): the fallback where the jail cannot be built.
	Bare bool
}
