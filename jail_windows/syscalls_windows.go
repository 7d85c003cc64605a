//go:build windows

package jail_windows

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procIsProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

// isProcessInJob reports whether process is in job (in any job when job
// is 0).
func isProcessInJob(process, job windows.Handle) (bool, error) {
	var in int32
	r, _, err := procIsProcessInJob.Call(uintptr(process), uintptr(job), uintptr(unsafe.Pointer(&in)))
	if r == 0 {
		return false, fmt.Errorf("IsProcessInJob: %w", err)
	}
	return in != 0, nil
}

// resumeThreads resumes every thread of the suspended process pid (a
// process created suspended has exactly one) and returns how many it
// resumed.
func resumeThreads(pid uint32) (n int, err error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return 0, fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	e := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &e); err == nil; err = windows.Thread32Next(snap, &e) {
		if e.OwnerProcessID != pid {
			continue
		}
		if err := resumeThread(e.ThreadID); err != nil {
			return n, err
		}
		n++
	}
	if err != windows.ERROR_NO_MORE_FILES {
		return n, fmt.Errorf("Thread32Next: %w", err)
	}
	return n, nil
}

func resumeThread(tid uint32) error {
	h, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, tid)
	if err != nil {
		return fmt.Errorf("OpenThread %d: %w", tid, err)
	}
	defer windows.CloseHandle(h)
	if _, err := windows.ResumeThread(h); err != nil {
		return fmt.Errorf("ResumeThread %d: %w", tid, err)
	}
	return nil
}
