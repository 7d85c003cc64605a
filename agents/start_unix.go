//go:build unix

package agents

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// startSupervisor starts `sandbox agents supervise NAME` detached (its own
// session, output to the agent's log), hands it the agent's lock, and
// waits until the record says the agent started, ended or failed.
func (r *Registry) startSupervisor(ctx context.Context, rec Record, lock *Lock, exe string) (Record, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return rec, fmt.Errorf("the sandbox binary: %w", err)
		}
	}
	logf, err := os.OpenFile(r.LogPath(rec.Name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return rec, err
	}
	defer logf.Close()
	cmd := &exec.Cmd{
		Path: exe,
		// argv[0] is the command's name: a binary that dispatches on it
		// (the test binary) runs sandbox.
		Args:   []string{"sandbox", "agents", "supervise", "--dir", r.Main.Root, rec.Name},
		Dir:    "/",
		Stdout: logf, Stderr: logf,
		ExtraFiles:  []*os.File{lock.File()}, // descriptor 3: the lock goes on with it
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		return rec, fmt.Errorf("start the supervisor: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return r.awaitStart(ctx, rec.Name, exited)
}

// awaitStart polls the record until it leaves Starting; a supervisor
// that exits first failed.
func (r *Registry) awaitStart(ctx context.Context, name string, exited <-chan struct{}) (Record, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		rec, err := r.read(name)
		if err != nil {
			return rec, err
		}
		if rec.State != Starting {
			return rec, nil
		}
		select {
		case <-exited:
			if rec, err = r.read(name); err == nil && rec.State == Starting {
				rec, err = r.Update(name, func(rec *Record) {
					rec.State, rec.Ended = Failed, time.Now().UTC()
					rec.Error = "the supervisor exited before the agent started (see `sandbox agents logs " + name + "`)"
				})
			}
			return rec, err
		case <-ctx.Done():
			return rec, ctx.Err()
		case <-tick.C:
		}
	}
}

// InheritedLock is the agent lock a supervisor got from its spawn as
// descriptor 3; it must be the lock file of name, which no child of the
// supervisor inherits.
func (r *Registry) InheritedLock(name string) (*Lock, error) {
	f := os.NewFile(3, "lock")
	fi, err1 := f.Stat()
	want, err2 := os.Stat(r.LockPath(name))
	if err1 != nil || err2 != nil || !os.SameFile(fi, want) {
		return nil, fmt.Errorf("agents supervise: no lock of %s on descriptor 3 (only spawn and resume start a supervisor)", name)
	}
	syscall.CloseOnExec(3)
	return &Lock{f: f}, nil
}

// signalSupervisor sends SIGTERM (stop: the supervisor ends the jail and
// records it) or SIGKILL (the jail's init dies with its parent).
func signalSupervisor(pid int, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	err := syscall.Kill(pid, sig)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}
