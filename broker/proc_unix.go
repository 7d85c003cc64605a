//go:build unix

package broker

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const oNoFollow = syscall.O_NOFOLLOW

// shells maps a script's shell to the trusted paths tried in order. The
// agent's PATH is never consulted.
var shells = map[string][]string{
	"bash": {"/bin/bash", "/usr/bin/bash"},
	"sh":   {"/bin/sh", "/usr/bin/sh"},
	"dash": {"/bin/dash", "/usr/bin/dash"},
	"zsh":  {"/bin/zsh", "/usr/bin/zsh"},
}

// command returns the program path and argv for s.
func command(s Spec) (path string, args []string, err error) {
	if len(s.Argv) > 0 {
		path, err := lookPath(s.Argv[0], getenv(s.Env, "PATH"))
		return path, s.Argv, err
	}
	name := s.Shell
	if name == "" {
		name = "bash"
	}
	for _, p := range shells[name] {
		if isExecutable(p) {
			return p, []string{name, "-c", s.Script}, nil
		}
	}
	return "", nil, fmt.Errorf("%w: %q", ErrShell, s.Shell)
}

// lookPath finds name on pathList, skipping empty and relative entries (a
// relative entry would mean the agent's working directory). A name with a
// slash is returned unchanged.
func lookPath(name, pathList string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range strings.Split(pathList, ":") {
		if dir == "" || dir[0] != '/' {
			continue
		}
		if p := dir + "/" + name; isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q on PATH %q", ErrNotFound, name, pathList)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// sysProcAttr starts the command in a new session: its own process group
// (killed as a whole) and no controlling terminal.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// killGroup signals the command's whole process group. The leader is not
// reaped before the group is killed, so its id cannot have been reused.
func (p *proc) killGroup(sig syscall.Signal) {
	if err := unix.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		p.cmd.Process.Signal(sig) // group gone or not ours: at least the leader
	}
}

// exitStatus returns the exit code, or 128+n and the signal's name.
func exitStatus(ps *os.ProcessState) (code int, signal string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ps.ExitCode(), ""
	}
	sig := ws.Signal()
	name := unix.SignalName(sig)
	if name == "" {
		name = fmt.Sprintf("signal %d", int(sig))
	}
	return 128 + int(sig), name
}

var sigTerm os.Signal = syscall.SIGTERM

// signalName names signal n ("SIGKILL"); 0 is none.
func signalName(n int) string {
	if n == 0 {
		return ""
	}
	if name := unix.SignalName(syscall.Signal(n)); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", n)
}

// procOS is nothing on Unix: the process group is the command's.
type procOS struct{}

func (p *proc) afterStart() error { return nil }
func (p *proc) release()          {}
