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
