//go:build linux

package jail_linux

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// TestCgroupV1BornInside: with limits on a v1 (or hybrid) machine, the
// init is forked from a supervisor thread standing in the jail's v1
// cgroups, so it is inside them from its first instruction (no
// migration), the limit holds, no supervisor thread stays behind, and the
// cgroups are gone at the end.
func TestCgroupV1BornInside(t *testing.T) {
	testenv.RequireRoot(t)
	f := detect()
	if !f.cg.useV1 || !f.cg.usable {
		testenv.Skip(t, "no usable cgroup v1 memory and pids controllers")
	}
	before := ownCgroups()
	j := &Jail{}
	marker := filepath.Join(t.TempDir(), "started")
	spec := &jailspec.Spec{
		Argv:    []string{"/bin/sh", "-c", "touch " + marker + "; exec sleep 60"},
		Env:     []string{"PATH=/usr/bin:/bin"},
		Dir:     "/",
		FS:      jailspec.FS{Writable: []string{filepath.Dir(marker)}}, // carried into the jail's private /tmp
		Limits:  jailspec.Limits{Pids: 50, MemoryBytes: 256 << 20},
		Enforce: jailspec.Enforce{Cgroup: true, MountNS: true, PidNS: true, Seccomp: true, NoNewPrivs: true},
	}
	p, err := j.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	waitFile(t, marker)
	own := cgroupsOf(t, p.Pid())
	var dirs []string
	for _, ctrl := range []string{"memory", "pids"} {
		h := f.cg.v1[ctrl]
		rel, _ := filepath.Rel(h.mount, h.dir)
		if !strings.HasPrefix(own[ctrl], filepath.Join("/", rel, "sandbox-")) {
			t.Fatalf("init's %s cgroup is %q, not a jail's under %s", ctrl, own[ctrl], h.dir)
		}
		dir := filepath.Join(h.mount, own[ctrl])
		dirs = append(dirs, dir)
		if got := readLines(filepath.Join(dir, "pids.max")); ctrl == "pids" && (len(got) != 1 || got[0] != "50") {
			t.Errorf("pids.max = %v", got)
		}
		for _, pid := range readLines(filepath.Join(dir, "cgroup.procs")) {
			if pid == strconv.Itoa(os.Getpid()) {
				t.Errorf("a supervisor thread stayed in %s", dir)
			}
		}
	}
	assertThreadsIn(t, before)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if st, err := p.Wait(context.Background()); err != nil || st.Signal != int(unix.SIGKILL) {
		t.Errorf("status %+v %v", st, err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("cgroup %s left behind: %v", d, err)
		}
	}
}

func cgroupsOf(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	return parseProcCgroup(strings.NewReader(string(b)))
}

// assertThreadsIn checks that every thread of this process is back in the
// memory and pids cgroups it started in.
func assertThreadsIn(t *testing.T, want map[string]string) {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/cgroup")
		if err != nil {
			continue // the thread ended
		}
		got := parseProcCgroup(strings.NewReader(string(b)))
		for _, ctrl := range []string{"memory", "pids"} {
			if got[ctrl] != want[ctrl] {
				t.Errorf("thread %s is in %s cgroup %q, want %q", task.Name(), ctrl, got[ctrl], want[ctrl])
			}
		}
	}
}
