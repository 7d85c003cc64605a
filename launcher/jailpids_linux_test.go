//go:build linux

package launcher

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// jailPids lists the processes in the cgroups of the supervisor whose pid
// is sup (their cgroup names start with sandbox-<sup>-).
func jailPids(sup int) []int {
	tag := "/sandbox-" + strconv.Itoa(sup) + "-"
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cgroup"))
		if strings.Contains(string(b), tag) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive returns the pids that still exist and are not zombies.
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && len(b) > i+2 && b[i+2] == 'Z' {
			continue
		}
		if syscall.Kill(p, 0) == nil {
			out = append(out, p)
		}
	}
	return out
}

// assertNoJailLeft checks that no process of this test process's jails
// survives a run and that their cgroups are gone.
func assertNoJailLeft(t *testing.T) {
	t.Helper()
	if left := alive(jailPids(os.Getpid())); len(left) > 0 {
		t.Errorf("jailed processes left: %v", left)
	}
	for _, pattern := range []string{"/sys/fs/cgroup/*/*/sandbox-%d-*", "/sys/fs/cgroup/*/sandbox-%d-*",
		"/sys/fs/cgroup/*/*/*/sandbox-%d-*", "/sys/fs/cgroup/*/sandbox/sandbox-%d-*"} {
		glob := strings.Replace(pattern, "%d", strconv.Itoa(os.Getpid()), 1)
		if m, _ := filepath.Glob(glob); len(m) > 0 {
			t.Errorf("cgroups left: %v", m)
		}
	}
}
