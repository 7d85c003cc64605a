package launcher

import (
	"errors"
	"fmt"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// PolicyLimits fills in each limit lim leaves unset from the folder's
// accepted policy (limits: memory, pids, cpu), as a run's bus loaded it.
// Without an accepted policy there is nothing to add.
func PolicyLimits(eng *policy.Engine, lim Limits) (Limits, error) {
	if eng == nil || eng.Status() == policy.StatusNothingAccepted {
		return lim, nil
	}
	pl := eng.Settings().Limits
	mem, err1 := pl.MemoryBytes()
	cpus, err2 := pl.CPUCores()
	if err := errors.Join(err1, err2); err != nil {
		return lim, fmt.Errorf("the accepted policy's limits: %w", err)
	}
	if lim.MemoryBytes == 0 {
		lim.MemoryBytes = mem
	}
	if lim.Pids == 0 {
		lim.Pids = int64(pl.PIDs)
	}
	if lim.CPUs == 0 {
		lim.CPUs = cpus
	}
	return lim, nil
}
