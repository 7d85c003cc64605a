//go:build linux

package jail_linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3/cgroup2"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// cgroupV2 is a cgroup under the probed base (root: <mount>/sandbox; a
// user: the delegated cgroup the supervisor runs in). The init is cloned
// straight into it (CLONE_INTO_CGROUP): no migration, no cost.
type cgroupV2 struct {
	m   *cgroup2.Manager
	dir string
	fd  int // O_DIRECTORY fd for CLONE_INTO_CGROUP
}

func newCgroupV2(f *facts, lim jailspec.Limits) (c cgroup, err error) {
	res := v2Resources(lim)
	group := filepath.Join(f.cg.v2Base, cgroupName())
	m, err := cgroup2.NewManager(f.cg.v2Mount, group, res)
	if errors.Is(err, unix.EBUSY) && f.cg.v2Delegated {
		// no internal processes: the supervisor leaves for a leaf first
		if err = moveSelfToLeaf(filepath.Join(f.cg.v2Mount, f.cg.v2Base)); err == nil {
			m, err = cgroup2.NewManager(f.cg.v2Mount, group, res)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cgroup v2 %s: %w", group, err)
	}
	dir := filepath.Join(f.cg.v2Mount, group)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = m.Delete()
		return nil, fmt.Errorf("cgroup v2 open: %w", err)
	}
	return &cgroupV2{m: m, dir: dir, fd: fd}, nil
}

// moveSelfToLeaf moves the supervisor into base/sandbox-supervisor so that
// base may enable controllers for its children.
func moveSelfToLeaf(base string) error {
	leaf := filepath.Join(base, "sandbox-supervisor")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0)
}

func v2Resources(lim jailspec.Limits) *cgroup2.Resources {
	r := &cgroup2.Resources{}
	if lim.MemoryBytes > 0 {
		m, zero := lim.MemoryBytes, int64(0)
		r.Memory = &cgroup2.Memory{Max: &m, Swap: &zero}
	}
	if lim.Pids > 0 {
		r.Pids = &cgroup2.Pids{Max: lim.Pids}
	}
	if lim.CPUs > 0 {
		period := uint64(100000)
		quota := int64(lim.CPUs * float64(period))
		r.CPU = &cgroup2.CPU{Max: cgroup2.NewCPUMax(&quota, &period)}
	}
	return r
}

func (c *cgroupV2) prepare(attr *syscall.SysProcAttr) {
	attr.UseCgroupFD = true
	attr.CgroupFD = c.fd
}

func (c *cgroupV2) enter() (func() error, error) { return func() error { return nil }, nil }

// kill writes cgroup.kill (kernel 5.14+; the library falls back to
// freeze, SIGKILL, thaw) and waits, bounded, for the cgroup to empty.
func (c *cgroupV2) kill() error {
	if !c.populated() {
		return nil
	}
	if err := c.m.Kill(); err != nil {
		return fmt.Errorf("cgroup v2 kill: %w", err)
	}
	for i := 0; i < 200 && c.populated(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

func (c *cgroupV2) populated() bool {
	return readCounter(filepath.Join(c.dir, "cgroup.events"), "populated") != 0
}

func (c *cgroupV2) events() (oom, pidsMax bool) {
	oom = readCounter(filepath.Join(c.dir, "memory.events"), "oom_kill") > 0
	pidsMax = readCounter(filepath.Join(c.dir, "pids.events"), "max") > 0
	return oom, pidsMax
}

// destroy removes the cgroup directory. The library's Delete walks every
// file of the cgroup first; an empty cgroup needs only rmdir, retried
// (bounded) while the kernel still holds the last exited task.
func (c *cgroupV2) destroy() error {
	_ = unix.Close(c.fd)
	var err error
	for i := 0; i < 100; i++ {
		if err = unix.Rmdir(c.dir); err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("cgroup v2 remove %s: %w", c.dir, err)
}
