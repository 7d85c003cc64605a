//go:build linux

package jail_linux

import (
	"log/slog"
	"os"
	"sync"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// A long-lived supervisor (the hook server, which starts a jail per
// command for an agent) asks the jail to keep a spare: an init started
// ahead, in fresh namespaces and its own cgroup, waiting for a config.
// Its start (a process start, the runtime's, the namespaces' and the
// cgroup's creation) then leaves the command's path; everything that
// depends on the command and on the machine's state at that moment (the
// spec's environment, mounts, pins, the shared /tmp's sockets, Landlock,
// seccomp) is still done by the init when the config comes, as for any
// run. The command's standard streams travel with the config. A spare is
// used only by a run whose layers, limits and user namespace it was made
// with, and only once; the next is started as that run begins.

// spareKey is what a spare must have been made with to serve a run.
type spareKey struct {
	enforce jailspec.Enforce
	limits  jailspec.Limits
	userNS  bool
}

// spares are the Jail's inits started ahead.
type spares struct {
	mu sync.Mutex
	on bool
	m  map[spareKey]*starter
}

// KeepSpares makes Start keep one init started ahead for the kind of
// run it last served (on), or stops doing so and ends the spares (off).
// Only a process that starts many jails gains from it.
func (j *Jail) KeepSpares(on bool) {
	j.spares.mu.Lock()
	j.spares.on = on
	var drop []*starter
	if !on {
		drop = j.spares.removeAll()
	}
	j.spares.mu.Unlock()
	abortAll(drop)
}

// removeAll empties the spares and returns them, to be ended outside the
// lock (held by the caller).
func (sp *spares) removeAll() []*starter {
	var drop []*starter
	for k, s := range sp.m {
		drop = append(drop, s)
		delete(sp.m, k)
	}
	return drop
}

func abortAll(drop []*starter) {
	for _, s := range drop {
		s.abort()
	}
}

// StartAhead starts one init for the next run, of the kind enf and lim
// make, before that run can start: for a process that knows which run
// comes next but not yet when (an agent's supervisor waiting for its
// spawn's word). The next Start takes it if it is of that kind, and ends
// it otherwise; it is not replaced.
func (j *Jail) StartAhead(enf jailspec.Enforce, lim jailspec.Limits) {
	f := j.detect()
	if j.fdsErr != nil {
		return
	}
	j.makeSpare(spareKey{enf, lim, f.userNS(enf)}, f, slog.New(slog.DiscardHandler), true)
}

// takeSpare returns the spare made for key, if any, and the function
// that starts the next one once the run has ended (nil when spares are
// off): started at once, it would compete for the CPU with the run it is
// for. With spares off, a spare started ahead is taken when it is of the
// run's kind and ended when it is not.
func (j *Jail) takeSpare(key spareKey, f *facts, log *slog.Logger) (s *starter, refill func()) {
	j.spares.mu.Lock()
	s = j.spares.m[key]
	delete(j.spares.m, key)
	if j.spares.on {
		j.spares.mu.Unlock()
		return s, func() { go j.makeSpare(key, f, log, false) }
	}
	drop := j.spares.removeAll()
	j.spares.mu.Unlock()
	abortAll(drop)
	return s, nil
}

// makeSpare starts an init for key, with the null device for streams,
// and keeps it unless one is kept already (or, but for one started
// ahead, spares are off).
func (j *Jail) makeSpare(key spareKey, f *facts, log *slog.Logger, ahead bool) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return
	}
	defer null.Close()
	s := &starter{f: f, spec: &jailspec.Spec{Enforce: key.enforce, Limits: key.limits, Stdin: null}, log: log}
	if key.enforce.Cgroup {
		if s.cg, err = newCgroup(f, key.limits, key.enforce.PidNS); err != nil {
			log.Debug("jail spare: cgroup", "err", err)
			return
		}
	}
	if err := s.launch(key.userNS); err != nil {
		log.Debug("jail spare: start", "err", err)
		s.abort()
		return
	}
	j.spares.mu.Lock()
	if j.spares.m == nil {
		j.spares.m = map[spareKey]*starter{}
	}
	keep := (j.spares.on || ahead) && j.spares.m[key] == nil
	if keep {
		j.spares.m[key] = s
	}
	j.spares.mu.Unlock()
	if !keep {
		s.abort()
	}
}
