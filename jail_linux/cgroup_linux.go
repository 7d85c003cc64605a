//go:build linux

package jail_linux

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// cgroup is one jail's cgroup, on v1 or v2.
type cgroup interface {
	// prepare sets up attr so that the init starts inside the cgroup
	// (CLONE_INTO_CGROUP on v2).
	prepare(attr *syscall.SysProcAttr)
	// enter moves the calling, locked thread into the cgroup (v1), so
	// that the init forked from it starts inside; leave moves it back.
	// leave is never nil and must be called, even after an error.
	enter() (leave func() error, err error)
	// kill kills every process left in the cgroup.
	kill() error
	// events reads the OOM-kill and pids-limit counters.
	events() (oom, pidsMax bool)
	// destroy removes the (empty) cgroup.
	destroy() error
}

// sweepOnce sweeps, once per process, what killed supervisors left.
var sweepOnce sync.Once

// sweepAll removes the stale jail cgroups (sweepStale) where this
// process's jails go: the v2 base, and its own cgroup in each v1
// hierarchy.
func sweepAll(f *facts) {
	if f.cg.v2Base != "" {
		sweepStale(filepath.Join(f.cg.v2Mount, f.cg.v2Base))
	}
	for _, h := range f.cg.v1 {
		sweepStale(h.dir)
	}
}

// cgroupSeq numbers the cgroups of one supervisor process.
var cgroupSeq atomic.Int64

// cgroupName is unique per supervisor and run.
func cgroupName() string {
	return fmt.Sprintf("sandbox-%d-%d", os.Getpid(), cgroupSeq.Add(1))
}

// newCgroup creates the jail's cgroups. On v2 one cgroup does it all. On
// hybrid machines the jail is cloned into a v2 cgroup (free, and
// cgroup.kill empties it) and is forked into v1 controllers only when
// there are limits to enforce (see cgroupV1.enter). On pure v1
// the freezer kills the rest when there is no pid namespace to do it.
func newCgroup(f *facts, lim jailspec.Limits, pidNS bool) (cg cgroup, err error) {
	if !f.cg.usable {
		return nil, fmt.Errorf("%w: cgroup: %s", ErrLayer, f.cg.why)
	}
	sweepOnce.Do(func() { go sweepAll(f) })
	var m multiCgroup
	defer func() {
		if err != nil {
			m.destroy()
		}
	}()
	if f.cg.v2Base != "" {
		v2lim := lim
		if f.cg.useV1 {
			v2lim = jailspec.Limits{}
		}
		c, err := newCgroupV2(f, v2lim)
		if err != nil {
			return nil, err
		}
		m = append(m, c)
	}
	if f.cg.useV1 && (!lim.IsZero() || len(m) == 0) {
		c, err := newCgroupV1(f, lim, pidNS, len(m) > 0)
		if err != nil {
			return nil, err
		}
		m = append(m, c)
	}
	if len(m) == 1 {
		return m[0], nil
	}
	return m, nil
}

// multiCgroup is a jail in a v2 cgroup and v1 controllers at once.
type multiCgroup []cgroup

func (m multiCgroup) prepare(attr *syscall.SysProcAttr) {
	for _, c := range m {
		c.prepare(attr)
	}
}

func (m multiCgroup) enter() (func() error, error) {
	var leaves []func() error
	leave := func() error {
		var errs []error
		for _, l := range leaves {
			errs = append(errs, l())
		}
		return errors.Join(errs...)
	}
	for _, c := range m {
		l, err := c.enter()
		leaves = append(leaves, l)
		if err != nil {
			return leave, err
		}
	}
	return leave, nil
}

func (m multiCgroup) kill() error {
	var errs []error
	for _, c := range m {
		errs = append(errs, c.kill())
	}
	return errors.Join(errs...)
}

func (m multiCgroup) events() (oom, pidsMax bool) {
	for _, c := range m {
		o, p := c.events()
		oom, pidsMax = oom || o, pidsMax || p
	}
	return oom, pidsMax
}

func (m multiCgroup) destroy() error {
	var errs []error
	for _, c := range m {
		errs = append(errs, c.destroy())
	}
	return errors.Join(errs...)
}

// readCounter returns the value of key in a flat-keyed cgroup file such as
// memory.events ("oom_kill 3"); 0 when absent.
func readCounter(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
