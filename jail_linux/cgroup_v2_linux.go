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

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// cgroupV2 is a cgroup under the probed base (root: <mount>/sandbox; a
// user: the delegated cgroup the supervisor runs in). The init is cloned
// straight into it (CLONE_INTO_CGROUP): no migration, no cost.
type cgroupV2 struct {
	dir string
	fd  int // O_DIRECTORY fd for CLONE_INTO_CGROUP
}

func newCgroupV2(f *facts, lim jailspec.Limits) (c cgroup, err error) {
	dir := filepath.Join(f.cg.v2Mount, f.cg.v2Base, cgroupName())
	err = makeCgroupV2(f.cg.v2Mount, dir, lim)
	if errors.Is(err, unix.EBUSY) && f.cg.v2Delegated {
		// no internal processes: the supervisor leaves for a leaf first
		if err = moveSelfToLeaf(filepath.Join(f.cg.v2Mount, f.cg.v2Base)); err == nil {
			err = makeCgroupV2(f.cg.v2Mount, dir, lim)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cgroup v2 %s: %w", dir, err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = unix.Rmdir(dir)
		return nil, fmt.Errorf("cgroup v2 open: %w", err)
	}
	return &cgroupV2{dir: dir, fd: fd}, nil
}

// makeCgroupV2 creates dir (and the base above it) under the unified
// mount, enables the controllers its limits need, and writes them. On
// failure the new directory is removed.
func makeCgroupV2(mount, dir string, lim jailspec.Limits) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	controllers, settings := v2Settings(lim)
	err := enableControllers(mount, dir, controllers)
	if err == nil {
		err = writeSettings(dir, settings)
	}
	if err != nil {
		_ = unix.Rmdir(dir)
	}
	return err
}

// moveSelfToLeaf moves the supervisor into base/sandbox-supervisor so that
// base may enable controllers for its children.
func moveSelfToLeaf(base string) error {
	leaf := filepath.Join(base, "sandbox-supervisor")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return writeCgroupFile(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(os.Getpid()))
}

func (c *cgroupV2) prepare(attr *syscall.SysProcAttr) {
	attr.UseCgroupFD = true
	attr.CgroupFD = c.fd
}

func (c *cgroupV2) enter() (func() error, error) { return func() error { return nil }, nil }

// kill writes cgroup.kill (kernel 5.14+; before it, every process listed
// gets SIGKILL, frozen first so that none forks past the listing) and
// waits, bounded, for the cgroup to empty.
func (c *cgroupV2) kill() error {
	if !c.populated() {
		return nil
	}
	if err := writeCgroupFile(filepath.Join(c.dir, "cgroup.kill"), "1"); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cgroup v2 kill: %w", err)
		}
		if err := c.killListed(); err != nil {
			return fmt.Errorf("cgroup v2 kill: %w", err)
		}
	}
	for i := 0; i < 200 && c.populated(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// killListed is kill before cgroup.kill: freeze (cgroup.freeze, 5.2+),
// SIGKILL every process listed, thaw.
func (c *cgroupV2) killListed() error {
	freeze := filepath.Join(c.dir, "cgroup.freeze")
	if err := writeCgroupFile(freeze, "1"); err == nil {
		defer writeCgroupFile(freeze, "0")
	}
	procs, err := procsUnder(c.dir)
	for _, p := range procs {
		_ = unix.Kill(p, unix.SIGKILL)
	}
	return err
}

func (c *cgroupV2) populated() bool {
	return readCounter(filepath.Join(c.dir, "cgroup.events"), "populated") != 0
}

func (c *cgroupV2) events() (oom, pidsMax bool) {
	oom = readCounter(filepath.Join(c.dir, "memory.events"), "oom_kill") > 0
	pidsMax = readCounter(filepath.Join(c.dir, "pids.events"), "max") > 0
	return oom, pidsMax
}

// destroy removes the cgroup directory. An empty cgroup needs only rmdir, retried
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
