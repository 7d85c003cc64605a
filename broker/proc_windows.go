//go:build windows

package broker

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

const oNoFollow = 0 // O_EXCL creation never follows a reparse point

// command returns the program path and argv for s. Scripts are not
// supported on Windows yet; an argv runs through CreateProcess, a bare
// name found on the PATH of s.Env (lookpath_windows.go).
func command(s Spec) (path string, args []string, err error) {
	if len(s.Argv) == 0 {
		return "", nil, fmt.Errorf("%w: scripts on Windows: %w", ErrShell, errors.ErrUnsupported)
	}
	path, err = lookPath(s.Argv[0], s.Env)
	if err != nil {
		return "", nil, err
	}
	if err := checkCmdArgs(path, s.Argv); err != nil { // batbadbut.go
		return "", nil, err
	}
	return path, s.Argv, nil
}

// sysProcAttr starts the command suspended, so that it enters its Job
// Object (afterStart) before it can start anything.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED}
}

// killGroup terminates the command's Job Object: the command and every
// process it started, detached or not (Windows has no SIGTERM: both end
// it at once).
func (p *proc) killGroup(sig syscall.Signal) {
	if sig != syscall.SIGKILL && sig != syscall.SIGTERM {
		return
	}
	if p.os.job != 0 {
		windows.TerminateJobObject(p.os.job, 1)
		return
	}
	p.cmd.Process.Kill()
}

func (p *proc) awaitExit() {
	defer close(p.exited)
	p.waitErr = p.cmd.Wait()
	p.reaped = true
}

func exitStatus(ps *os.ProcessState) (code int, signal string) { return ps.ExitCode(), "" }

var sigTerm os.Signal = os.Kill

func signalName(int) string { return "" }
