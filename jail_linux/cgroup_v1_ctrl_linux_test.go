//go:build linux

package jail_linux

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

func TestV1Controllers(t *testing.T) {
	mem, pids, cpu, frz := "memory", "pids", "cpu", "freezer"
	cases := []struct {
		name      string
		lim       jailspec.Limits
		pidNS, v2 bool
		want      []string
	}{
		{"hybrid, pids", jailspec.Limits{Pids: 10}, true, true, []string{pids}},
		{"hybrid, memory", jailspec.Limits{MemoryBytes: 1 << 20}, true, true, []string{mem}},
		{"hybrid, cpu", jailspec.Limits{CPUs: 0.5}, false, true, []string{cpu}},
		{"hybrid, all", jailspec.Limits{MemoryBytes: 1 << 20, Pids: 10, CPUs: 1}, false, true, []string{mem, pids, cpu}},
		{"v1, pids", jailspec.Limits{Pids: 10}, true, false, []string{mem, pids}},
		{"v1, none", jailspec.Limits{}, true, false, []string{mem, pids}},
		{"v1, no pid namespace", jailspec.Limits{}, false, false, []string{mem, pids, frz}},
		{"v1, cpu", jailspec.Limits{CPUs: 2}, true, false, []string{mem, pids, cpu}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := v1Controllers(tc.lim, tc.pidNS, tc.v2); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCgroupV1OnlyLimited: on a hybrid machine a pids limit alone puts
// the jail into a v1 pids cgroup only (its memory cgroup stays the
// supervisor's), the limit holds and is reported, and nothing is left.
func TestCgroupV1OnlyLimited(t *testing.T) {
	testenv.RequireRoot(t)
	f := detect()
	if !f.cg.useV1 || !f.cg.usable || f.cg.v2Base == "" {
		testenv.Skip(t, "not a hybrid machine with usable v1 controllers and a v2 cgroup")
	}
	before := ownCgroups()
	marker := filepath.Join(t.TempDir(), "started")
	spec := &jailspec.Spec{
		Argv:    []string{"/bin/sh", "-c", "touch " + marker + "; exec sleep 60"},
		Env:     []string{"PATH=/usr/bin:/bin"},
		Dir:     "/",
		FS:      jailspec.FS{Writable: []string{filepath.Dir(marker)}}, // carried into the jail's private /tmp
		Limits:  jailspec.Limits{Pids: 20},
		Enforce: jailspec.Enforce{Cgroup: true, MountNS: true, PidNS: true, Seccomp: true, NoNewPrivs: true},
	}
	p, err := (&Jail{}).Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	waitFile(t, marker)
	own := cgroupsOf(t, p.Pid())
	if own["memory"] != before["memory"] {
		t.Errorf("init's memory cgroup is %q, want the supervisor's %q", own["memory"], before["memory"])
	}
	h := f.cg.v1["pids"]
	rel, _ := filepath.Rel(h.mount, h.dir)
	if !strings.HasPrefix(own["pids"], filepath.Join("/", rel, "sandbox-")) {
		t.Fatalf("init's pids cgroup is %q, not a jail's under %s", own["pids"], h.dir)
	}
	dir := filepath.Join(h.mount, own["pids"])
	if got := readLines(filepath.Join(dir, "pids.max")); len(got) != 1 || got[0] != "20" {
		t.Errorf("pids.max = %v", got)
	}
	assertThreadsIn(t, before)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if st, err := p.Wait(context.Background()); err != nil || st.Signal != int(unix.SIGKILL) {
		t.Errorf("status %+v %v", st, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cgroup %s left behind: %v", dir, err)
	}
}
