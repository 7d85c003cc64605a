//go:build !linux && !windows

package launcher

import (
	"context"
	"errors"
	"runtime"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// unsupported is the jail of systems without one yet.
type unsupported struct{}

func osJail() Jail { return unsupported{} }

func (unsupported) Probe() Report {
	r := Report{OS: runtime.GOOS}
	for _, l := range jailspec.Layers {
		r.Layers = append(r.Layers, LayerReport{Layer: l, Status: StatusMissing,
			Detail: "run mode has no jail on " + runtime.GOOS + " yet"})
	}
	return r
}

func (unsupported) Start(context.Context, *Spec) (Process, error) {
	return nil, errors.ErrUnsupported
}

// MaybeInit does nothing where there is no jail init.
func MaybeInit() {}

// KeepSpares: no init is started ahead on this system.
func KeepSpares(bool) {}

// startAhead: no init is started ahead on this system.
func startAhead(jailspec.Enforce, jailspec.Limits) {}
