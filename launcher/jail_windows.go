//go:build windows

package launcher

import (
	"github.com/sandbox-dev/sandbox/jail_windows"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

var _ Jail = (*jail_windows.Jail)(nil)

var windowsJail jail_windows.Jail

func osJail() Jail { return &windowsJail }

// MaybeInit does nothing on Windows: the jail has no init process.
func MaybeInit() {}

// KeepSpares: a Windows jail has no init to start ahead.
func KeepSpares(bool) {}

// startAhead: no init is started ahead on this system.
func startAhead(jailspec.Enforce, jailspec.Limits) {}
