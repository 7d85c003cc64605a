//go:build linux

package jail_linux

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// cgroup is one jail's cgroup, on v1 or v2.
type cgroup interface {
	// prepare sets up attr so that the init starts inside the cgroup
	// (CLONE_INTO_CGROUP on v2); false when join must be called instead.
	prepare(attr *syscall.SysProcAttr) bool
	// join moves the started init into the cgroup (v1: once, before it
	// starts the command).
	join(pid int) error
	// kill kills every process left in the cgroup.
	kill() error
	// events reads the OOM-kill and pids-limit counters.
	events() (oom, pidsMax bool)
	// destroy removes the (empty) cgroup.
	destroy() error
}

// cgroupSeq numbers the cgroups of one supervisor process.
var cgroupSeq atomic.Int64

// cgroupName is unique per supervisor and run.
func cgroupName() string {
	return fmt.Sprintf("sandbox-%d-%d", os.Getpid(), cgroupSeq.Add(1))
}

// newCgroup creates the jail's cgroup with limits, on the hierarchy the
// probe chose.
func newCgroup(f *facts, lim jailspec.Limits, pidNS bool) (cgroup, error) {
	switch {
	case f.cg.useV1:
		return newCgroupV1(f, lim, pidNS)
	case f.cg.v2Base != "":
		return newCgroupV2(f, lim)
	}
	return nil, fmt.Errorf("%w: cgroup: %s", ErrLayer, f.cg.why)
}

// readCounter returns the value of key in a flat-keyed cgroup file such as
// memory.events ("oom_kill 3"); 0 when absent.
func readCounter(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
