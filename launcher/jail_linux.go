//go:build linux

package launcher

import (
	"github.com/sandbox-dev/sandbox/jail_linux"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

var _ Jail = (*jail_linux.Jail)(nil)

var linuxJail jail_linux.Jail

func osJail() Jail { return &linuxJail }

// MaybeInit runs the jail's init and exits when this process was started
// as one; call it first thing in main.
func MaybeInit() { jail_linux.MaybeInit() }

// KeepSpares makes the jail keep an init started ahead of the next run,
// for a process that starts many jails (the hook server); off ends the
// spares. See jail_linux.Jail.KeepSpares.
func KeepSpares(on bool) { linuxJail.KeepSpares(on) }

// startAhead starts the init of a run with these layers and limits before
// the run (jail_linux.Jail.StartAhead).
func startAhead(enf jailspec.Enforce, lim jailspec.Limits) { linuxJail.StartAhead(enf, lim) }
