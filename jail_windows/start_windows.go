//go:build windows

package jail_windows

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kolesnikovae/go-winjob"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/windows"
)

// waitDelay bounds how long Wait drains the command's output once the
// job is empty.
const waitDelay = 2 * time.Second

// testHookLaunched, set by tests, runs between the creation of the
// suspended process and its entry into the job; an error aborts Start.
var testHookLaunched func(pid int) error

// starter carries one Start through its steps.
type starter struct {
	spec *jailspec.Spec
	log  *slog.Logger
	clip Clipboard

	job  *winjob.JobObject
	cmd  *exec.Cmd
	proc windows.Handle // the command's process: wait, assign, terminate
	lw   *limitWatch
}

func (s *starter) start(ctx context.Context) (p jailspec.Process, err error) {
	if err := ctx.Err(); err != nil {
		return nil, &StartError{Code: codeSetup, Err: err}
	}
	if err := checkSpec(s.spec); err != nil {
		return nil, &StartError{Code: codeSetup, Err: err}
	}
	path, err := lookPath(s.spec.Argv[0], s.spec.Env, s.spec.Dir)
	if err != nil {
		return nil, &StartError{Code: codeNotFound, Err: err}
	}
	defer func() {
		if err != nil {
			s.abort()
		}
	}()
	if err := s.makeJob(); err != nil {
		return nil, &StartError{Code: codeSetup, Err: err}
	}
	if err := s.launch(path); err != nil {
		return nil, err
	}
	if testHookLaunched != nil {
		if err := testHookLaunched(s.cmd.Process.Pid); err != nil {
			return nil, &StartError{Code: codeSetup, Err: err}
		}
	}
	if err := s.enter(); err != nil {
		return nil, &StartError{Code: codeSetup, Err: err}
	}
	s.log.Debug("jail command started", "pid", s.cmd.Process.Pid, "path", path)
	return newProcess(s), nil
}

// checkSpec refuses what a Job Object cannot do: every layer but the job
// itself (cgroup: limits; pid: kill the tree).
func checkSpec(spec *jailspec.Spec) error {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return fmt.Errorf("%w: no command", ErrSpec)
	}
	if !filepath.IsAbs(spec.Dir) {
		return fmt.Errorf("%w: working directory %q is not absolute", ErrSpec, spec.Dir)
	}
	e := spec.Enforce
	for _, l := range []struct {
		on   bool
		name jailspec.Layer
	}{
		{e.Landlock, jailspec.LayerLandlock}, {e.Seccomp, jailspec.LayerSeccomp},
		{e.NoNewPrivs, jailspec.LayerNoNewPrivs}, {e.MountNS, jailspec.LayerMount},
		{e.NetNS, jailspec.LayerNetwork},
	} {
		if l.on {
			return fmt.Errorf("%w: %s", ErrLayer, l.name)
		}
	}
	return nil
}

func (s *starter) makeJob() (err error) {
	if s.job, err = newJob(s.spec.Limits, s.spec.Enforce.Cgroup, s.clip); err != nil {
		return err
	}
	s.lw, err = watchLimits(windows.Handle(s.job.Handle))
	return err
}

// launch creates the command's process with its only thread suspended.
func (s *starter) launch(path string) error {
	sp := s.spec
	s.cmd = &exec.Cmd{
		Path: path, Args: sp.Argv, Env: sp.Env, Dir: sp.Dir,
		Stdin: sp.Stdin, Stdout: sp.Stdout, Stderr: sp.Stderr,
		SysProcAttr: &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED},
		WaitDelay:   waitDelay,
	}
	if err := s.cmd.Start(); err != nil {
		s.cmd = nil
		return &StartError{Code: codeNoExec, Err: err}
	}
	return nil
}

// enter puts the suspended process in the job, checks it is there, then
// lets it run. The process cannot exit or be replaced in between, so its
// pid names it.
func (s *starter) enter() (err error) {
	pid := uint32(s.cmd.Process.Pid)
	const access = windows.SYNCHRONIZE | windows.PROCESS_QUERY_INFORMATION |
		windows.PROCESS_SET_QUOTA | windows.PROCESS_TERMINATE
	if s.proc, err = windows.OpenProcess(access, false, pid); err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	job := windows.Handle(s.job.Handle)
	if err := windows.AssignProcessToJobObject(job, s.proc); err != nil {
		return fmt.Errorf("%w: assign: %w", ErrJob, err)
	}
	if in, err := isProcessInJob(s.proc, job); err != nil || !in {
		return fmt.Errorf("%w: the process is not in its job after assignment (%v)", ErrJob, err)
	}
	n, err := resumeThreads(pid)
	if err == nil && n == 0 {
		err = errors.New("no thread to resume")
	}
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	return nil
}

// abort undoes a failed start: the suspended process never ran.
func (s *starter) abort() {
	if s.cmd != nil {
		if s.job != nil {
			_ = s.job.TerminateWithExitCode(KilledCode)
		}
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
	if s.proc != 0 {
		windows.CloseHandle(s.proc)
	}
	if s.lw != nil {
		s.lw.close()
	}
	if s.job != nil {
		_ = s.job.Close()
	}
}
