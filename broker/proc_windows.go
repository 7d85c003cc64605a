//go:build windows

package broker

import (
	"errors"
	"fmt"
	"os"
	"syscall"
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

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the leader only; killing the tree needs a Job Object
// (a later issue).
func (p *proc) killGroup(sig syscall.Signal) {
	if sig == syscall.SIGKILL || sig == syscall.SIGTERM {
		p.cmd.Process.Kill()
	}
}

func (p *proc) awaitExit() {
	defer close(p.exited)
	p.waitErr = p.cmd.Wait()
	p.reaped = true
}

func exitStatus(ps *os.ProcessState) (code int, signal string) { return ps.ExitCode(), "" }

var sigTerm os.Signal = os.Kill

func signalName(int) string { return "" }
