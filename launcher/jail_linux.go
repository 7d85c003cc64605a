//go:build linux

package launcher

import "github.com/sandbox-dev/sandbox/jail_linux"

var _ Jail = (*jail_linux.Jail)(nil)

var linuxJail jail_linux.Jail

func osJail() Jail { return &linuxJail }

// MaybeInit runs the jail's init and exits when this process was started
// as one; call it first thing in main.
func MaybeInit() { jail_linux.MaybeInit() }
