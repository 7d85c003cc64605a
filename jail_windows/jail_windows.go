//go:build windows

// Package jail_windows is the Windows jail of run mode: it starts a command
// suspended, puts it in a fresh Job Object before it runs a single
// instruction, and only then lets it run. The job kills the whole process
// tree when the supervisor closes its handle, whatever way the supervisor
// ends (kill-on-close, and no process may break away); it also carries the
// memory, process and CPU limits and the UI restrictions. A Job Object
// confines neither the file system, nor the registry, nor direct network
// connections: Probe says so, and the launcher refuses to run without the
// user's --allow-degraded for those layers. It implements launcher.Jail
// without importing the launcher.
package jail_windows

import (
	"context"
	"log/slog"
	"sync"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// Clipboard is what jailed processes may do with the clipboard.
type Clipboard int

// Clipboard access levels; the zero value denies both directions.
const (
	ClipboardNone      Clipboard = iota // neither read nor write
	ClipboardWrite                      // write (copy out of the jail), no read
	ClipboardReadWrite                  // both
)

// Jail is the Windows jail. The zero value is ready (no clipboard); it
// detects the system once, on first use, and is safe for concurrent use.
type Jail struct {
	// Clipboard sets the job's clipboard restrictions.
	Clipboard Clipboard

	once  sync.Once
	facts *facts
}

func (j *Jail) detect() *facts {
	j.once.Do(func() { j.facts = detect() })
	return j.facts
}

// Probe reports what each layer enforces on this machine.
func (j *Jail) Probe() jailspec.Report { return j.detect().report() }

// Start starts spec's command in a new Job Object and returns once it
// runs; on error nothing is left behind.
func (j *Jail) Start(ctx context.Context, spec *jailspec.Spec) (jailspec.Process, error) {
	log := spec.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &starter{spec: spec, log: log, clip: j.Clipboard}
	return s.start(ctx)
}
