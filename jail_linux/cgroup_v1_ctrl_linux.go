//go:build linux

package jail_linux

import "github.com/sandbox-dev/sandbox/launcher/jailspec"

// v1Controllers are the v1 hierarchies a jail needs. Where a v2 cgroup
// holds the jail too (hybrid), it lists and kills the jail's processes,
// so v1 only carries the limits that are set: each controller costs a
// directory, a move of the forking thread in and out, and a removal.
// On pure v1, memory and pids are always there (the memory cgroup is
// where kill finds the jail's processes), cpu with a CPU limit, and the
// freezer when no pid namespace kills the rest.
func v1Controllers(lim jailspec.Limits, pidNS, killedByV2 bool) []string {
	if killedByV2 {
		var names []string
		for _, c := range []struct {
			name string
			set  bool
		}{{"memory", lim.MemoryBytes > 0}, {"pids", lim.Pids > 0}, {"cpu", lim.CPUs > 0}} {
			if c.set {
				names = append(names, c.name)
			}
		}
		return names
	}
	names := []string{"memory", "pids"}
	if lim.CPUs > 0 {
		names = append(names, "cpu")
	}
	if !pidNS {
		names = append(names, "freezer")
	}
	return names
}

// tracking is the jail's directory in the first hierarchy it has, in
// the order memory, pids, cpu, freezer: where kill finds its processes.
func (c *cgroupV1) tracking() string {
	for _, n := range []string{"memory", "pids", "cpu", "freezer"} {
		if dir, ok := c.paths[n]; ok {
			return dir
		}
	}
	return ""
}
