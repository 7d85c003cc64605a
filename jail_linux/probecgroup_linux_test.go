//go:build linux

package jail_linux

import (
	"strings"
	"testing"
)

const (
	mountsV2 = `25 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
30 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw`
	mountsHybrid = `40 25 0:35 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
41 40 0:36 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
42 40 0:37 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
43 40 0:38 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
44 40 0:39 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`
	mountsV1 = `41 40 0:36 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
42 40 0:37 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids`
	mountsNS = `41 40 0:36 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory`
)

func TestCgroupPlacement(t *testing.T) {
	tests := []struct {
		name, mounts, own string
		euid              int
		mode              string
		useV1             bool
		memDir            string // v1 memory dir
		v2Base            string
	}{
		{"pure v2 as root", mountsV2, "0::/user.slice/session-1.scope", 0, "v2", false, "", "/sandbox"},
		{"pure v2 user, not delegated", mountsV2, "0::/user.slice/session-1.scope", 1000, "v2", false, "", ""},
		{"hybrid", mountsHybrid, "4:memory:/process_api/x\n8:pids:/\n1:cpu,cpuacct:/\n0::/", 0, "hybrid", true, "/sys/fs/cgroup/memory/process_api/x", "/sandbox"},
		{"legacy v1", mountsV1, "4:memory:/a\n8:pids:/a", 0, "v1", true, "/sys/fs/cgroup/memory/a", ""},
		{"v1 in a cgroup namespace", mountsNS, "4:memory:/docker/abc/inner", 0, "v1", true, "/sys/fs/cgroup/memory/inner", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cgroupFacts{v1: map[string]v1Hier{}}
			own := parseProcCgroup(strings.NewReader(tc.own))
			parseMountinfo(strings.NewReader(tc.mounts), &c, own)
			c = placeCgroup(c, own, tc.euid)
			if c.mode != tc.mode || c.useV1 != tc.useV1 || c.v1["memory"].dir != tc.memDir || c.v2Base != tc.v2Base {
				t.Errorf("got mode %q v1 %v mem %q base %q (%s)", c.mode, c.useV1, c.v1["memory"].dir, c.v2Base, c.why)
			}
		})
	}
}
