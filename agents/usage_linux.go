//go:build linux

package agents

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// jailUsage reads the CPU time and memory of the jail the supervisor pid
// runs, from the cgroups of its child (the jail's init) that are not the
// supervisor's own: cgroup v2, or v1's memory and cpuacct on a hybrid
// machine. Where no memory controller counts for the jail (a v2 cgroup
// without it, as on a hybrid machine's empty unified hierarchy when the
// policy sets no limit), memory is the resident memory of the processes
// the jail's cgroup lists (v2's, or a v1 hierarchy's it has its own
// cgroup in).
func jailUsage(supervisor int) (cpuSeconds float64, memory int64) {
	if supervisor <= 0 {
		return 0, 0
	}
	own := cgroupsOf(strconv.Itoa(supervisor))
	jail := jailCgroups(supervisor, own)
	if jail == nil {
		return 0, 0
	}
	mounts := cgroupMounts()
	at := func(ctl, file string) string {
		if jail[ctl] == "" || jail[ctl] == own[ctl] || mounts[ctl] == "" {
			return ""
		}
		b, _ := os.ReadFile(filepath.Join(mounts[ctl], jail[ctl], file))
		return string(b)
	}
	if v := at("", "cpu.stat"); v != "" {
		cpuSeconds = float64(field(v, "usage_usec")) / 1e6
	} else if v := at("cpuacct", "cpuacct.usage"); v != "" {
		cpuSeconds = float64(number(v)) / 1e9
	}
	if v := at("", "memory.current"); v != "" {
		memory = number(v)
	} else if v := at("memory", "memory.usage_in_bytes"); v != "" {
		memory = number(v)
	} else {
		for _, ctl := range slices.Sorted(maps.Keys(jail)) { // v2 (""), else a v1 hierarchy the jail has its own cgroup in
			if v := at(ctl, "cgroup.procs"); v != "" {
				return cpuSeconds, resident(strings.Fields(v))
			}
		}
	}
	return cpuSeconds, memory
}

// resident sums the resident memory of pids (statm; a process gone in
// between counts nothing).
func resident(pids []string) int64 {
	var pages int64
	for _, p := range pids {
		b, err := os.ReadFile("/proc/" + p + "/statm")
		if f := strings.Fields(string(b)); err == nil && len(f) > 1 {
			pages += number(f[1])
		}
	}
	return pages * int64(os.Getpagesize())
}

// jailCgroups are the cgroups of the first child of pid (forked from any
// of its threads) whose cgroups differ from own.
func jailCgroups(pid int, own map[string]string) map[string]string {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, c := range strings.Fields(string(b)) {
			cg := cgroupsOf(c)
			for k, v := range cg {
				if own[k] != v {
					return cg
				}
			}
		}
	}
	return nil
}

// cgroupsOf maps each controller of /proc/PID/cgroup ("" for v2) to its
// path.
func cgroupsOf(pid string) map[string]string {
	b, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			m[ctl] = f[2]
		}
	}
	return m
}

// cgroupMounts maps "" to the cgroup2 mount and each v1 controller to
// its hierarchy's mount.
func cgroupMounts() map[string]string {
	m := map[string]string{}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch tail[0] {
		case "cgroup2":
			m[""] = fields[4]
		case "cgroup":
			for _, opt := range strings.Split(tail[2], ",") {
				m[opt] = fields[4]
			}
		}
	}
	return m
}

func number(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n
}

func field(s, key string) int64 {
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			return number(v)
		}
	}
	return 0
}
