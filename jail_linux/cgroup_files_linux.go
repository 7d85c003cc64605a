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

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// A jail's cgroup is a directory and a few control files; they are
// written here directly. (A cgroup library brought protobuf, eBPF, DWARF,
// logrus and D-Bus into the binary, whose package initialisation every
// process of ours, the hook and the jail's init first, paid at start.)

// cgroupSetting is one control file and the value written to it.
type cgroupSetting struct{ file, value string }

// v1Settings are the limits of lim for the v1 controller ctrl. The memory
// limit covers swap too (memsw = memory) where swap is accounted.
func v1Settings(ctrl string, lim jailspec.Limits) []cgroupSetting {
	switch ctrl {
	case "memory":
		if lim.MemoryBytes > 0 {
			m := strconv.FormatInt(lim.MemoryBytes, 10)
			return []cgroupSetting{{"memory.limit_in_bytes", m}, {"memory.memsw.limit_in_bytes", m}}
		}
	case "pids":
		if lim.Pids > 0 {
			return []cgroupSetting{{"pids.max", strconv.FormatInt(lim.Pids, 10)}}
		}
	case "cpu":
		if lim.CPUs > 0 {
			quota, period := cpuQuota(lim.CPUs)
			return []cgroupSetting{{"cpu.cfs_period_us", period}, {"cpu.cfs_quota_us", quota}}
		}
	}
	return nil
}

// v2Settings are the limits of lim in a v2 cgroup, and the controllers
// its parent must enable for them. Memory gets no swap.
func v2Settings(lim jailspec.Limits) (controllers []string, s []cgroupSetting) {
	if lim.CPUs > 0 {
		quota, period := cpuQuota(lim.CPUs)
		controllers = append(controllers, "cpu")
		s = append(s, cgroupSetting{"cpu.max", quota + " " + period})
	}
	if lim.MemoryBytes > 0 {
		controllers = append(controllers, "memory")
		s = append(s, cgroupSetting{"memory.swap.max", "0"},
			cgroupSetting{"memory.max", strconv.FormatInt(lim.MemoryBytes, 10)})
	}
	if lim.Pids > 0 {
		controllers = append(controllers, "pids")
		s = append(s, cgroupSetting{"pids.max", strconv.FormatInt(lim.Pids, 10)})
	}
	return controllers, s
}

// cpuQuota is a CPU limit as a CFS quota per 100 ms period.
func cpuQuota(cpus float64) (quota, period string) {
	const p = 100000
	return strconv.FormatInt(int64(cpus*p), 10), strconv.Itoa(p)
}

// writeSettings writes each setting into the cgroup dir. A file the
// kernel does not have is an error, except swap's where swap is not
// accounted (no swap, no way around the memory limit through it).
func writeSettings(dir string, settings []cgroupSetting) error {
	for _, s := range settings {
		err := writeCgroupFile(filepath.Join(dir, s.file), s.value)
		if err != nil && errors.Is(err, os.ErrNotExist) && strings.Contains(s.file, "sw") {
			continue // memory.memsw.* (v1), memory.swap.max (v2)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeCgroupFile writes value into an existing control file in one
// write (a control file takes its value from one write call).
func writeCgroupFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// enableControllers writes "+ctrl ..." into the cgroup.subtree_control of
// every cgroup from the mount down to dir's parent, so that dir has the
// controllers. A write refused high up (EPERM for a delegated user) is
// harmless when a lower one succeeds: only the last write's error counts.
func enableControllers(mount, dir string, controllers []string) error {
	if len(controllers) == 0 {
		return nil
	}
	rel, err := filepath.Rel(mount, filepath.Dir(dir))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("cgroup %s is not under %s", dir, mount)
	}
	value := "+" + strings.Join(controllers, " +")
	var last error
	at := mount
	for _, part := range append([]string{""}, strings.Split(rel, "/")...) {
		if part == "." {
			continue
		}
		at = filepath.Join(at, part)
		last = writeCgroupFile(filepath.Join(at, "cgroup.subtree_control"), value)
	}
	return last
}

// freezeV1 sets a v1 freezer cgroup's state (FROZEN or THAWED) and waits,
// bounded, until the kernel reports it (FREEZING passes through).
func freezeV1(dir, state string) error {
	path := filepath.Join(dir, "freezer.state")
	for i := 0; i < 2000; i++ {
		if err := writeCgroupFile(path, state); err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.TrimSpace(string(b)) == state {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("cgroup v1 freezer %s: not %s after 2 s", dir, state)
}
