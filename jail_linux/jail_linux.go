//go:build linux

// Package jail_linux is the Linux jail of run mode: it starts a command in
// a fresh cgroup and, where the machine allows, new mount, pid and network
// namespaces, with Landlock, a seccomp filter, no_new_privs and no
// capabilities. The sandbox binary re-executes itself as the jail's init
// (MaybeInit), which applies the irreversible restrictions to itself and
// forks the command; the supervisor never restricts itself. It implements
// launcher.Jail without importing the launcher.
package jail_linux

import (
	"context"
	"fmt"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"log/slog"
	"sync"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// Jail is the Linux jail. The zero value is ready; it detects the kernel's
// features once, on first use, and is safe for concurrent use.
type Jail struct {
	once   sync.Once
	facts  *facts
	fdsErr error // from cloexecInherited, which runs once with detect
	spares spares
}

func (j *Jail) detect() *facts {
	j.once.Do(func() {
		j.facts = detect()
		j.fdsErr = jailinit.CloexecInherited()
	})
	return j.facts
}

// Probe reports what each layer enforces on this machine.
func (j *Jail) Probe() jailspec.Report { return j.detect().report() }

// CompletesSpecLate says that Start calls spec.Complete once the init
// runs, before it configures the init.
func (j *Jail) CompletesSpecLate() bool { return true }

// Start starts spec's command in the jail and returns once the command
// runs (or the set-up failed, in which case nothing is left behind).
func (j *Jail) Start(ctx context.Context, spec *jailspec.Spec) (jailspec.Process, error) {
	f := j.detect()
	if j.fdsErr != nil {
		return nil, fmt.Errorf("inherited descriptors: %w", j.fdsErr)
	}
	log := spec.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &starter{j: j, f: f, spec: spec, log: log}
	return s.start(ctx)
}
