package launcher

import (
	"context"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// Jail is what the launcher needs from an OS jail.
type Jail interface {
	// Probe reports, per layer, what the jail enforces on this machine.
	// It is cheap (a few syscalls and file reads) and detects once.
	Probe() Report
	// Start starts spec's command in the jail. The returned Process runs;
	// on error nothing is left behind.
	Start(ctx context.Context, spec *Spec) (Process, error)
}

// The jail's data types, shared through jailspec so that the jails need
// not import this package.
type (
	Spec        = jailspec.Spec
	Report      = jailspec.Report
	LayerReport = jailspec.LayerReport
	Process     = jailspec.Process
	ExitStatus  = jailspec.ExitStatus
	Layer       = jailspec.Layer
	Status      = jailspec.Status
)

// The layers, as --allow-degraded names them.
const (
	LayerCgroup     = jailspec.LayerCgroup
	LayerLandlock   = jailspec.LayerLandlock
	LayerSeccomp    = jailspec.LayerSeccomp
	LayerNoNewPrivs = jailspec.LayerNoNewPrivs
	LayerMount      = jailspec.LayerMount
	LayerPid        = jailspec.LayerPid
	LayerNetwork    = jailspec.LayerNetwork
)

// Status values of a layer.
const (
	StatusOK       = jailspec.StatusOK
	StatusDegraded = jailspec.StatusDegraded
	StatusMissing  = jailspec.StatusMissing
)

// ParseLayer accepts a layer name as --allow-degraded spells it.
func ParseLayer(s string) (Layer, error) { return jailspec.ParseLayer(s) }

// Probe reports what this machine's jail enforces, for `sandbox doctor`.
func Probe() Report { return osJail().Probe() }
