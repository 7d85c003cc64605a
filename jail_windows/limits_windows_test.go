//go:build windows

package jail_windows

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/windows"
)

func queryExtended(job windows.Handle) (windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION, error) {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	err := windows.QueryInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return info, err
}

func queryUI(job windows.Handle) (uint32, error) {
	var info windows.JOBOBJECT_BASIC_UI_RESTRICTIONS
	err := windows.QueryInformationJobObject(job, windows.JobObjectBasicUIRestrictions,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return info.UIRestrictionsClass, err
}

// notChecked says, under Wine, that Windows-only behaviour was not
// checked; it reports whether the caller must stop.
func notChecked(t *testing.T, what string) bool {
	t.Helper()
	if v := WineVersion(); v != "" {
		t.Logf("NOT CHECKED under Wine %s: %s", v, what)
		return true
	}
	return false
}

// Windows sets a CPU cap; Wine refuses it, and then Start fails rather
// than run without the cap.
func TestJobCPUCap(t *testing.T) {
	job, err := newJob(jailspec.Limits{CPUs: 0.5}, true, ClipboardNone)
	if WineVersion() != "" {
		if !errors.Is(err, ErrJob) {
			t.Fatalf("under Wine a CPU cap gave %v, want ErrJob (Wine refuses the class)", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("a CPU cap could not be set: %v", err)
	}
	job.Close()
}

func TestJobLimitFlags(t *testing.T) {
	if notChecked(t, "limit flags read back (Wine's query returns zeros)") {
		return
	}
	const base = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
	const mem = windows.JOB_OBJECT_LIMIT_JOB_MEMORY | windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
	for _, tc := range []struct {
		name    string
		lim     jailspec.Limits
		enforce bool
		flags   uint32
	}{
		{"no limits", jailspec.Limits{}, true, base},
		{"memory", jailspec.Limits{MemoryBytes: 64 << 20}, true, base | mem},
		{"pids", jailspec.Limits{Pids: 7}, true, base | windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS},
		{"both", jailspec.Limits{MemoryBytes: 1 << 30, Pids: 2}, true, base | mem | windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS},
		{"limits not enforced", jailspec.Limits{MemoryBytes: 1 << 30, Pids: 2}, false, base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, err := newJob(tc.lim, tc.enforce, ClipboardNone)
			if err != nil {
				t.Fatal(err)
			}
			defer job.Close()
			info, err := queryExtended(windows.Handle(job.Handle))
			if err != nil {
				t.Fatalf("query extended limits: %v", err)
			}
			b := info.BasicLimitInformation
			if b.LimitFlags != tc.flags {
				t.Fatalf("limit flags %#x, want %#x (never a breakaway flag)", b.LimitFlags, tc.flags)
			}
			if tc.flags&mem != 0 && (info.JobMemoryLimit != uintptr(tc.lim.MemoryBytes) || info.ProcessMemoryLimit != uintptr(tc.lim.MemoryBytes)) {
				t.Errorf("memory limits %d/%d, want %d", info.JobMemoryLimit, info.ProcessMemoryLimit, tc.lim.MemoryBytes)
			}
			if tc.flags&windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS != 0 && b.ActiveProcessLimit != uint32(tc.lim.Pids) {
				t.Errorf("active-process limit %d, want %d", b.ActiveProcessLimit, tc.lim.Pids)
			}
		})
	}
}

func TestUIRestrictions(t *testing.T) {
	if notChecked(t, "UI restrictions read back (Wine cannot query them)") {
		return
	}
	const clipR, clipW = windows.JOB_OBJECT_UILIMIT_READCLIPBOARD, windows.JOB_OBJECT_UILIMIT_WRITECLIPBOARD
	for _, tc := range []struct {
		clip Clipboard
		want uint32
	}{
		{ClipboardNone, uiLimits | clipR | clipW},
		{ClipboardWrite, uiLimits | clipR},
		{ClipboardReadWrite, uiLimits},
	} {
		job, err := newJob(jailspec.Limits{}, true, tc.clip)
		if err != nil {
			t.Fatal(err)
		}
		got, err := queryUI(windows.Handle(job.Handle))
		job.Close()
		if err != nil {
			t.Fatalf("query UI restrictions: %v", err)
		}
		if got != tc.want {
			t.Errorf("clipboard %d: UI restrictions %#x, want %#x", tc.clip, got, tc.want)
		}
	}
}

func TestCPURate(t *testing.T) {
	for _, tc := range []struct {
		cpus float64
		n    int
		want uint32
	}{
		{1, 4, 2500}, {1.5, 4, 3750}, {4, 4, 10000}, {8, 4, 10000}, {0.00001, 64, 1}, {1, 0, 10000}, {0.5, 3, 1667},
	} {
		if got := cpuRate(tc.cpus, tc.n); got != tc.want {
			t.Errorf("cpuRate(%v, %d) = %d, want %d", tc.cpus, tc.n, got, tc.want)
		}
	}
}

// The limits are enforced by Windows only; Wine accepts them and enforces
// nothing, so under Wine this test says so and checks nothing.
func TestLimitsEnforced(t *testing.T) {
	if notChecked(t, "active-process, memory and CPU limits (accepted, not enforced by Wine)") {
		return
	}
	t.Run("processes", func(t *testing.T) {
		spec := helperSpec(t, "procs", "5")
		spec.Limits.Pids = 3
		st, out := run(t, spec)
		if !strings.Contains(out, "started 2") || !st.PidsLimit {
			t.Fatalf("with --pids 3 the command started children: %q (PidsLimit %v)", out, st.PidsLimit)
		}
	})
	t.Run("memory", func(t *testing.T) {
		spec := helperSpec(t, "alloc", "536870912")
		spec.Limits.MemoryBytes = 128 << 20
		st, out := run(t, spec)
		if st.Code != 1 || !st.OOMKilled {
			t.Fatalf("with --memory 128M a 512M commit gave code %d, OOMKilled %v: %q", st.Code, st.OOMKilled, out)
		}
	})
	t.Run("cpu", func(t *testing.T) {
		var j Jail
		spec := helperSpec(t, "exit", "0")
		spec.Limits.CPUs = 0.5
		p, err := j.Start(context.Background(), spec)
		if err != nil {
			t.Fatalf("a CPU cap could not be set: %v", err)
		}
		p.Wait(context.Background())
	})
}
