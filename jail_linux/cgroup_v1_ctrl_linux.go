//go:build linux

package jail_linux

import (
	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// v1Controllers are the v1 hierarchies a jail needs. Where a v2 cgroup
// holds the jail too (hybrid), it lists and kills the jail's processes,
// so v1 only carries the limits that are set: each controller costs a
// directory, a move of the forking thread in and out, and a removal.
// On pure v1, memory and pids are always there (the memory cgroup is
// where kill finds the jail's processes), cpu with a CPU limit, and the
// freezer when no pid namespace kills the rest.
func v1Controllers(lim jailspec.Limits, pidNS, killedByV2 bool) []cgroup1.Name {
	if killedByV2 {
		var names []cgroup1.Name
		for _, c := range []struct {
			name cgroup1.Name
			set  bool
		}{{cgroup1.Memory, lim.MemoryBytes > 0}, {cgroup1.Pids, lim.Pids > 0}, {cgroup1.Cpu, lim.CPUs > 0}} {
			if c.set {
				names = append(names, c.name)
			}
		}
		return names
	}
	names := []cgroup1.Name{cgroup1.Memory, cgroup1.Pids}
	if lim.CPUs > 0 {
		names = append(names, cgroup1.Cpu)
	}
	if !pidNS {
		names = append(names, cgroup1.Freezer)
	}
	return names
}

// tracking is the jail's directory in the first hierarchy it has, in
// the order memory, pids, cpu, freezer: where kill finds its processes.
func (c *cgroupV1) tracking() string {
	for _, n := range []cgroup1.Name{cgroup1.Memory, cgroup1.Pids, cgroup1.Cpu, cgroup1.Freezer} {
		if dir, ok := c.paths[string(n)]; ok {
			return dir
		}
	}
	return ""
}
