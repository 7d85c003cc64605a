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

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// cgroupV1 is a cgroup nested under the supervisor's own cgroup in each
// v1 hierarchy it needs (v1Controllers).
type cgroupV1 struct {
	cg    cgroup1.Cgroup
	paths map[string]string // controller -> absolute directory
	own   map[string]string // controller -> the supervisor's own directory
}

// newCgroupV1 creates the jail's v1 cgroups. killedByV2 says that a v2
// cgroup holds the jail too and empties it (hybrid machines).
func newCgroupV1(f *facts, lim jailspec.Limits, pidNS, killedByV2 bool) (cgroup, error) {
	names := v1Controllers(lim, pidNS, killedByV2)
	name := cgroupName()
	c := &cgroupV1{paths: map[string]string{}, own: map[string]string{}}
	subs, err := c.subsystems(f, names, name)
	if err != nil {
		return nil, err
	}
	cg, err := cgroup1.New(cgroup1.NestedPath(name), v1Resources(lim),
		cgroup1.WithHierarchy(func() ([]cgroup1.Subsystem, error) { return subs, nil }))
	if err != nil {
		return nil, fmt.Errorf("cgroup v1: %w", err)
	}
	c.cg = cg
	return c, nil
}

// subsystems builds the controllers from the probed mount points and
// records where the jail's directories will be.
func (c *cgroupV1) subsystems(f *facts, names []cgroup1.Name, name string) ([]cgroup1.Subsystem, error) {
	var subs []cgroup1.Subsystem
	for _, n := range names {
		h, ok := f.cg.v1[string(n)]
		if !ok {
			return nil, fmt.Errorf("%w: cgroup v1 controller %s is not mounted", ErrLayer, n)
		}
		root := filepath.Dir(h.mount)
		switch n {
		case cgroup1.Memory:
			subs = append(subs, cgroup1.NewMemory(root, cgroup1.OptionalSwap()))
		case cgroup1.Pids:
			subs = append(subs, cgroup1.NewPids(root))
		case cgroup1.Cpu:
			subs = append(subs, cgroup1.NewCpu(root))
		case cgroup1.Freezer:
			subs = append(subs, cgroup1.NewFreezer(root))
		}
		c.paths[string(n)] = filepath.Join(h.dir, name)
		c.own[string(n)] = h.dir
	}
	return subs, nil
}

func v1Resources(lim jailspec.Limits) *specs.LinuxResources {
	r := &specs.LinuxResources{}
	if lim.MemoryBytes > 0 {
		m := lim.MemoryBytes
		r.Memory = &specs.LinuxMemory{Limit: &m, Swap: &m} // memsw = mem: no swap
	}
	if lim.Pids > 0 {
		r.Pids = &specs.LinuxPids{Limit: &lim.Pids}
	}
	if lim.CPUs > 0 {
		period := uint64(100000)
		quota := int64(lim.CPUs * float64(period))
		r.CPU = &specs.LinuxCPU{Quota: &quota, Period: &period}
	}
	return r
}

func (c *cgroupV1) prepare(*syscall.SysProcAttr) {}

// kill kills every process in the jail's cgroup (and below),
// frozen first where there is a freezer, and waits, bounded, for them to
// leave it. It reads cgroup.procs directly: the library's listing stats
// every file of the hierarchy.
func (c *cgroupV1) kill() error {
	dir := c.tracking()
	if dir == "" {
		return errors.New("bug: cgroup v1 without a hierarchy")
	}
	procs, err := procsUnder(dir)
	if err != nil || len(procs) == 0 {
		return err
	}
	if _, ok := c.paths[string(cgroup1.Freezer)]; ok {
		if err := c.cg.Freeze(); err != nil {
			return fmt.Errorf("cgroup v1 freeze: %w", err)
		}
		defer c.cg.Thaw()
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
	if dir, ok := c.paths[string(cgroup1.Memory)]; ok {
		oom = readCounter(filepath.Join(dir, "memory.oom_control"), "oom_kill") > 0
	}
	if dir, ok := c.paths[string(cgroup1.Pids)]; ok {
		pidsMax = readCounter(filepath.Join(dir, "pids.events"), "max") > 0
	}
	return oom, pidsMax
}

// destroy removes the jail's directory in each hierarchy (rmdir, deepest
// first; the library's Delete walks every file first).
func (c *cgroupV1) destroy() error {
	var errs []error
	for _, dir := range c.paths {
		errs = append(errs, removeTree(dir))
	}
	return errors.Join(errs...)
}
