//go:build linux

package jail_linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// procsUnder lists the processes in the cgroup dir and in every cgroup
// below it, sorted by nothing in particular.
func procsUnder(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("cgroup processes: %w", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cgroup processes: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			sub, err := procsUnder(filepath.Join(dir, e.Name()))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			pids = append(pids, sub...)
		}
	}
	return pids, nil
}

// removeTree removes the (empty) cgroup dir and the cgroups below it,
// deepest first. An absent dir is no error. rmdir is retried (bounded)
// while the kernel still holds the last exited task.
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for i := 0; i < 100; i++ {
		if err = unix.Rmdir(dir); err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("cgroup remove %s: %w", dir, err)
}

// staleAge is how old a jail's cgroup of a dead supervisor must be before
// sweepStale removes it: never one that another supervisor has just made
// and not yet started its init in.
const staleAge = time.Minute

// sweepStale removes from dir the jails' cgroups (sandbox-PID-N) whose
// supervisor was killed before it could remove them: its PID is gone, the
// cgroup is empty (rmdir refuses one that is not) and older than
// staleAge. A PID in use again keeps its cgroups until it is gone too.
func sweepStale(dir string) (removed []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, ok := jailCgroupPID(e.Name())
		if !ok || !e.IsDir() || pid == self {
			continue
		}
		if err := unix.Kill(pid, 0); !errors.Is(err, unix.ESRCH) {
			continue
		}
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < staleAge {
			continue
		}
		if unix.Rmdir(filepath.Join(dir, e.Name())) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}

// jailCgroupPID reads the supervisor's PID from a jail's cgroup name
// (cgroupName: sandbox-PID-N).
func jailCgroupPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "sandbox-")
	if !ok {
		return 0, false
	}
	p, n, ok := strings.Cut(rest, "-")
	pid, err1 := strconv.Atoi(p)
	_, err2 := strconv.Atoi(n)
	return pid, ok && err1 == nil && err2 == nil && pid > 0
}
