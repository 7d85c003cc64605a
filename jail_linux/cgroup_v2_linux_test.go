//go:build linux

package jail_linux

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// v2Jail is a jail forced onto the unified hierarchy under base, whatever
// the probe would choose (here: the empty v2 half of a hybrid machine).
func v2Jail(t *testing.T, base string) (*Jail, string) {
	t.Helper()
	testenv.RequireRoot(t)
	f := detect()
	if f.cg.v2Mount == "" {
		testenv.Skip(t, "no cgroup v2 hierarchy is mounted")
	}
	f.cg.useV1, f.cg.v2Base, f.cg.usable = false, base, true
	j := &Jail{}
	j.once.Do(func() { j.facts = f })
	dir := filepath.Join(f.cg.v2Mount, base)
	t.Cleanup(func() { os.Remove(dir) })
	return j, dir
}

// TestCgroupV2 starts jails cloned into a v2 cgroup (CLONE_INTO_CGROUP,
// no migration) and kills them whole with cgroup.kill, with and without a
// pid namespace (without one, cgroup.kill is what reaches the orphans).
func TestCgroupV2(t *testing.T) {
	j, dir := v2Jail(t, "/sandbox-test-"+strconv.Itoa(os.Getpid()))
	for _, pidNS := range []bool{true, false} {
		t.Run("pidns="+strconv.FormatBool(pidNS), func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "started")
			spec := &jailspec.Spec{
				Argv:    []string{"/bin/sh", "-c", "sleep 60 & sleep 60 & touch " + marker + "; wait"},
				Env:     []string{"PATH=/usr/bin:/bin"},
				Dir:     "/",
				FS:      jailspec.FS{Writable: []string{filepath.Dir(marker)}}, // carried into the jail's private /tmp
				Enforce: jailspec.Enforce{Cgroup: true, MountNS: pidNS, PidNS: pidNS, Seccomp: true, NoNewPrivs: true},
			}
			p, err := j.Start(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			waitFile(t, marker)
			cg := ownV2Cgroup(t, p.Pid())
			if !strings.HasPrefix(cg, strings.TrimPrefix(dir, detect().cg.v2Mount)+"/sandbox-") {
				t.Fatalf("init is in %q, not under %s", cg, dir)
			}
			procs := readLines(filepath.Join(detect().cg.v2Mount, cg, "cgroup.procs"))
			if len(procs) < 4 { // init, sh, sleep, sleep (and touch, maybe, on its way out)
				t.Errorf("cgroup holds %v", procs)
			}
			if err := p.Kill(); err != nil {
				t.Fatal(err)
			}
			st, err := p.Wait(context.Background())
			if err != nil || st.Signal != int(unix.SIGKILL) {
				t.Errorf("status %+v %v", st, err)
			}
			for _, pid := range procs {
				if st, _ := os.ReadFile("/proc/" + pid + "/stat"); len(st) > 0 && !strings.Contains(string(st), ") Z ") {
					t.Errorf("pid %s survived: %s", pid, st)
				}
			}
			if _, err := os.Stat(filepath.Join(detect().cg.v2Mount, cg)); !os.IsNotExist(err) {
				t.Errorf("cgroup %s left behind: %v", cg, err)
			}
		})
	}
}

func ownV2Cgroup(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	return parseProcCgroup(strings.NewReader(string(b)))[""]
}

func readLines(path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Fields(string(b))
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not appear within 10s", path)
}
