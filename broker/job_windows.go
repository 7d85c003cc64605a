//go:build windows

package broker

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procOS is the command's Job Object, created with kill-on-close: every
// process the command starts is in it (breakaway is not allowed), and
// terminating or closing it ends them all, as a cgroup does on Linux.
type procOS struct {
	job windows.Handle
}

// afterStart puts the suspended command into a new Job Object and
// resumes it. On failure the command is killed before it ran.
func (p *proc) afterStart() (err error) {
	defer func() {
		if err != nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
			p.release()
		}
	}()
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("job object: %w", err)
	}
	p.os.job = job
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return fmt.Errorf("job object limits: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.cmd.Process.Pid))
	if err != nil {
		return fmt.Errorf("open the command's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("job object: assign: %w", err)
	}
	return resumeThreads(uint32(p.cmd.Process.Pid))
}

// release closes the Job Object, which kills whatever is left in it.
func (p *proc) release() {
	if p.os.job != 0 {
		windows.CloseHandle(p.os.job)
		p.os.job = 0
	}
}

// resumeThreads resumes the threads of the suspended process pid (one,
// as it was created suspended).
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	defer windows.CloseHandle(snap)
	e := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	n := 0
	for err = windows.Thread32First(snap, &e); err == nil; err = windows.Thread32Next(snap, &e) {
		if e.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, e.ThreadID)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("resume: no thread of process %d", pid)
	}
	return nil
}
