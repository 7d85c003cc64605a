//go:build linux

package jail_linux

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// fakeCgroupTree makes dirs with the given (empty) control files, as a
// cgroup filesystem has them: writeCgroupFile never creates a file.
func fakeCgroupTree(t *testing.T, root string, files map[string][]string) {
	t.Helper()
	for dir, names := range files {
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(d, n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCgroupV2Files: the limits land in their files, every ancestor below
// the mount enables the controllers, and nothing is written above it.
func TestCgroupV2Files(t *testing.T) {
	mount := t.TempDir()
	fakeCgroupTree(t, mount, map[string][]string{
		".":                        {"cgroup.subtree_control"},
		"user.slice":               {"cgroup.subtree_control"},
		"user.slice/sandbox":       {"cgroup.subtree_control"},
		"user.slice/sandbox/jail1": {"cpu.max", "memory.max", "memory.swap.max", "pids.max"},
	})
	dir := filepath.Join(mount, "user.slice/sandbox/jail1")
	lim := jailspec.Limits{MemoryBytes: 64 << 20, Pids: 100, CPUs: 1.5}
	if err := makeCgroupV2(mount, dir, lim); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"cpu.max":         "150000 100000",
		"memory.max":      "67108864",
		"memory.swap.max": "0",
		"pids.max":        "100",
	} {
		if got := readFile(t, filepath.Join(dir, file)); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	for _, at := range []string{".", "user.slice", "user.slice/sandbox"} {
		if got := readFile(t, filepath.Join(mount, at, "cgroup.subtree_control")); got != "+cpu +memory +pids" {
			t.Errorf("%s/cgroup.subtree_control = %q", at, got)
		}
	}
}

// TestCgroupV2NoLimits: a jail without limits enables nothing and writes
// nothing; the directory is made (MkdirAll, the base too).
func TestCgroupV2NoLimits(t *testing.T) {
	mount := t.TempDir()
	fakeCgroupTree(t, mount, map[string][]string{".": {"cgroup.subtree_control"}})
	dir := filepath.Join(mount, "sandbox", "jail1")
	if err := makeCgroupV2(mount, dir, jailspec.Limits{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("cgroup dir: %v", err)
	}
	if got := readFile(t, filepath.Join(mount, "cgroup.subtree_control")); got != "" {
		t.Errorf("subtree_control written without limits: %q", got)
	}
}

// TestCgroupLimitFailsClosed: a limit whose file the kernel lacks (the
// controller is not there) is an error, and the new cgroup is removed;
// only swap's files may be missing (swap not accounted).
func TestCgroupLimitFailsClosed(t *testing.T) {
	mount := t.TempDir()
	fakeCgroupTree(t, mount, map[string][]string{
		".":     {"cgroup.subtree_control"},
		"jail1": {"memory.max"}, // no memory.swap.max: fine; no pids.max: not
	})
	dir := filepath.Join(mount, "jail1")
	if err := makeCgroupV2(mount, dir, jailspec.Limits{MemoryBytes: 1 << 20}); err != nil {
		t.Fatalf("memory without swap accounting: %v", err)
	}
	err := makeCgroupV2(mount, dir, jailspec.Limits{Pids: 10})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pids limit without pids.max: %v, want ErrNotExist", err)
	}
	// the directory had files, so rmdir failed: a real cgroup has none
	// that rmdir minds; what matters is that the error came back
}

// TestCgroupNotUnderMount: a cgroup outside the mount enables nothing.
func TestCgroupNotUnderMount(t *testing.T) {
	mount := t.TempDir()
	for _, dir := range []string{filepath.Dir(mount), filepath.Join(mount, "..", "x", "y")} {
		if err := enableControllers(mount, dir, []string{"pids"}); err == nil {
			t.Errorf("enableControllers(%s) outside %s: no error", dir, mount)
		}
	}
}

// TestCgroupV1Settings: v1's files and values; memory covers swap.
func TestCgroupV1Settings(t *testing.T) {
	lim := jailspec.Limits{MemoryBytes: 1 << 30, Pids: 7, CPUs: 0.25}
	var got []string
	for _, ctrl := range []string{"memory", "pids", "cpu", "freezer"} {
		for _, s := range v1Settings(ctrl, lim) {
			got = append(got, s.file+"="+s.value)
		}
	}
	want := "memory.limit_in_bytes=1073741824 memory.memsw.limit_in_bytes=1073741824 pids.max=7 cpu.cfs_period_us=100000 cpu.cfs_quota_us=25000"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if s := v1Settings("memory", jailspec.Limits{}); s != nil {
		t.Errorf("no limit, settings %v", s)
	}
}
