//go:build linux

package jail_linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// cgroupV1 is a cgroup nested under the supervisor's own cgroup in each
// v1 hierarchy it needs (v1Controllers).
type cgroupV1 struct {
	paths map[string]string // controller -> absolute directory
	own   map[string]string // controller -> the supervisor's own directory
}

// newCgroupV1 creates the jail's v1 cgroups with their limits. killedByV2
// says that a v2 cgroup holds the jail too and empties it (hybrid
// machines).
func newCgroupV1(f *facts, lim jailspec.Limits, pidNS, killedByV2 bool) (cg cgroup, err error) {
	name := cgroupName()
	c := &cgroupV1{paths: map[string]string{}, own: map[string]string{}}
	defer func() {
		if err != nil {
			_ = c.destroy()
		}
	}()
	for _, ctrl := range v1Controllers(lim, pidNS, killedByV2) {
		h, ok := f.cg.v1[ctrl]
		if !ok {
			return nil, fmt.Errorf("%w: cgroup v1 controller %s is not mounted", ErrLayer, ctrl)
		}
		dir := filepath.Join(h.dir, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("cgroup v1: %w", err)
		}
		c.paths[ctrl], c.own[ctrl] = dir, h.dir
		if err := writeSettings(dir, v1Settings(ctrl, lim)); err != nil {
			return nil, fmt.Errorf("cgroup v1: %w", err)
		}
	}
	return c, nil
}

func (c *cgroupV1) prepare(*syscall.SysProcAttr) {}

// kill kills every process in the jail's cgroup (and below),
// frozen first where there is a freezer, and waits, bounded, for them to
// leave it.
func (c *cgroupV1) kill() error {
	dir := c.tracking()
	if dir == "" {
		return errors.New("bug: cgroup v1 without a hierarchy")
	}
	procs, err := procsUnder(dir)
	if err != nil || len(procs) == 0 {
		return err
	}
	if frz, ok := c.paths["freezer"]; ok {
		if err := freezeV1(frz, "FROZEN"); err != nil {
			return fmt.Errorf("cgroup v1 freeze: %w", err)
		}
		defer freezeV1(frz, "THAWED")
		if procs, err = procsUnder(dir); err != nil {
			return err
		}
	}
	self := os.Getpid() // a supervisor thread that failed to leave (see enter) is never killed
	for _, p := range procs {
		if p != self {
			_ = unix.Kill(p, unix.SIGKILL)
		}
	}
	for i := 0; i < 200; i++ {
		if procs, err := procsUnder(dir); err != nil || len(procs) == 0 || slices.Equal(procs, []int{self}) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

func (c *cgroupV1) events() (oom, pidsMax bool) {
	if dir, ok := c.paths["memory"]; ok {
		oom = readCounter(filepath.Join(dir, "memory.oom_control"), "oom_kill") > 0
	}
	if dir, ok := c.paths["pids"]; ok {
		pidsMax = readCounter(filepath.Join(dir, "pids.events"), "max") > 0
	}
	return oom, pidsMax
}

// destroy removes the jail's directory in each hierarchy (rmdir, deepest
// first).
func (c *cgroupV1) destroy() error {
	var errs []error
	for _, dir := range c.paths {
		errs = append(errs, removeTree(dir))
	}
	return errors.Join(errs...)
}
