//go:build windows

package jail_windows

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/kolesnikovae/go-winjob"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/windows"
)

// newJob creates the jail's anonymous Job Object, its handle not
// inheritable, with kill-on-close, die-on-unhandled-exception, no
// breakaway, the UI restrictions and, when limits is set, the limits.
func newJob(lim jailspec.Limits, limits bool, clip Clipboard) (_ *winjob.JobObject, err error) {
	job, err := winjob.Create("", winjob.WithKillOnJobClose(), winjob.WithDieOnUnhandledException())
	if err != nil {
		return nil, fmt.Errorf("%w: create: %w", ErrJob, err)
	}
	defer func() {
		if err != nil {
			job.Close()
		}
	}()
	h := windows.Handle(job.Handle)
	if err := setUILimits(h, clip); err != nil {
		return nil, err
	}
	if !limits {
		return job, nil
	}
	if ls := limitsOf(lim); len(ls) > 0 {
		if err := job.SetLimit(ls...); err != nil {
			return nil, fmt.Errorf("%w: limits %+v: %w", ErrJob, lim, err)
		}
	}
	if lim.CPUs > 0 {
		if err := setCPURate(h, cpuRate(lim.CPUs, runtime.NumCPU())); err != nil {
			return nil, err
		}
	}
	return job, nil
}

// limitsOf turns the launcher's limits into job limits: --memory caps the
// job's committed memory and each process's, --pids the number of active
// processes (threads are not counted on Windows). --cpu is setCPURate's.
func limitsOf(lim jailspec.Limits) []winjob.Limit {
	var ls []winjob.Limit
	if lim.MemoryBytes > 0 {
		m := uintptr(min(lim.MemoryBytes, math.MaxInt64))
		ls = append(ls, winjob.WithJobMemoryLimit(m), winjob.WithProcessMemoryLimit(m))
	}
	if lim.Pids > 0 {
		ls = append(ls, winjob.WithActiveProcessLimit(uint32(min(lim.Pids, math.MaxUint32))))
	}
	return ls
}

// cpuRate is the hard cap in 1/10,000 of the whole machine: 1.5 cores of 4
// is 3750. It is at least 1 and at most 10,000.
func cpuRate(cpus float64, ncpu int) uint32 {
	r := math.Ceil(cpus / float64(max(ncpu, 1)) * 10000)
	return uint32(min(max(r, 1), 10000))
}

// uiLimits are the UI restrictions of every jail; the clipboard's are
// added per Clipboard.
const uiLimits = windows.JOB_OBJECT_UILIMIT_DESKTOP | windows.JOB_OBJECT_UILIMIT_DISPLAYSETTINGS |
	windows.JOB_OBJECT_UILIMIT_EXITWINDOWS | windows.JOB_OBJECT_UILIMIT_GLOBALATOMS |
	windows.JOB_OBJECT_UILIMIT_HANDLES | windows.JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS

func uiClass(clip Clipboard) uint32 {
	c := uint32(uiLimits)
	if clip < ClipboardReadWrite {
		c |= windows.JOB_OBJECT_UILIMIT_READCLIPBOARD
	}
	if clip < ClipboardWrite {
		c |= windows.JOB_OBJECT_UILIMIT_WRITECLIPBOARD
	}
	return c
}

// setUILimits sets the UI restrictions directly: go-winjob queries the
// class first, which is not needed here.
func setUILimits(job windows.Handle, clip Clipboard) error {
	info := windows.JOBOBJECT_BASIC_UI_RESTRICTIONS{UIRestrictionsClass: uiClass(clip)}
	_, err := windows.SetInformationJobObject(job, windows.JobObjectBasicUIRestrictions,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		return fmt.Errorf("%w: UI restrictions: %w", ErrJob, err)
	}
	return nil
}

// cpuRateInfo is JOBOBJECT_CPU_RATE_CONTROL_INFORMATION with its CpuRate.
type cpuRateInfo struct {
	flags uint32
	rate  uint32
}

// setCPURate caps the job's CPU time at rate/10,000 of the machine.
func setCPURate(job windows.Handle, rate uint32) error {
	const enable, hardCap = 0x1, 0x4 // JOB_OBJECT_CPU_RATE_CONTROL_*
	info := cpuRateInfo{flags: enable | hardCap, rate: rate}
	_, err := windows.SetInformationJobObject(job, windows.JobObjectCpuRateControlInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		return fmt.Errorf("%w: CPU cap: %w", ErrJob, err)
	}
	return nil
}
