//go:build unix

package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// pendingSupervisor is a supervisor started ahead of its agent's record
// and worktree: its process start, its runtime's and the jail's probe
// overlap the spawn's git work, and it waits at its gate (GoGateFD)
// until proceed (the record is there) or abort (the spawn failed).
type pendingSupervisor struct {
	r       *Registry
	name    string
	pid     int
	gate    *os.File // the write end of the gate
	started *os.File // the read end of StartedFD
	exited  chan struct{}
}

// GoGateFD is the descriptor on which a supervisor waits for its spawn's
// word: "go\n" (the record and the worktree are there), or the end of
// the pipe without it (the spawn failed: the supervisor exits).
const GoGateFD = 4

// StartedFD is the descriptor on which a supervisor tells its spawn (or
// resume) that the record left Starting: a line once the agent's command
// started, or the pipe's end when the supervisor exits first. The spawn
// returns then, not at its next look at the record.
const StartedFD = 5

// launchSupervisor starts `sandbox agents supervise NAME` detached (its
// own session, output to the agent's log) with the agent's lock; it waits
// at its gate. The record its starter writes before the gate opens names
// it (Record.PID).
func (r *Registry) launchSupervisor(name string, lock *Lock, exe string) (*pendingSupervisor, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("the sandbox binary: %w", err)
		}
	}
	logf, err := os.OpenFile(r.LogPath(name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer gateR.Close()
	startedR, startedW, err := os.Pipe()
	if err != nil {
		gateW.Close()
		return nil, err
	}
	defer startedW.Close()
	cmd := &exec.Cmd{
		Path: exe,
		// argv[0] is the command's name: a binary that dispatches on it
		// (the test binary) runs sandbox.
		Args:   []string{"sandbox", "agents", "supervise", "--dir", r.Main.Root, name},
		Dir:    "/",
		Stdout: logf, Stderr: logf,
		// 3: the lock goes on with it; 4: the gate; 5: started
		ExtraFiles:  []*os.File{lock.File(), gateR, startedW},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		gateW.Close()
		startedR.Close()
		return nil, fmt.Errorf("start the supervisor: %w", err)
	}
	p := &pendingSupervisor{r: r, name: name, pid: cmd.Process.Pid, gate: gateW, started: startedR, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// proceed opens the gate and waits until the record leaves Starting: the
// agent's command started, or it ended or failed first.
func (p *pendingSupervisor) proceed(ctx context.Context) (Record, error) {
	_, err := p.gate.Write([]byte("go\n"))
	p.gate.Close()
	if err != nil { // it is gone already: awaitStart records why
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
		}
	}
	defer p.started.Close()
	told := make(chan struct{})
	go func() {
		p.started.Read(make([]byte, 1)) // a line, or the end: either way look
		close(told)
	}()
	return p.r.awaitStart(ctx, p.name, told, p.exited)
}

// abort closes the gate unopened and waits (bounded) for the supervisor
// to exit, so that it never outlives a spawn that failed; the log it
// would have written to goes when empty.
func (p *pendingSupervisor) abort() {
	p.gate.Close()
	p.started.Close()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	if fi, err := os.Stat(p.r.LogPath(p.name)); err == nil && fi.Size() == 0 {
		os.Remove(p.r.LogPath(p.name))
	}
}

// AwaitGate is the supervisor's side: it blocks until the spawn says go
// (nil) or gives up (ErrSpawnAborted). A supervisor started without a
// gate (descriptor 4 is not a pipe) refuses to run.
func AwaitGate() error {
	f := os.NewFile(GoGateFD, "gate")
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return errors.New("agents supervise: no gate on descriptor 4 (only spawn and resume start a supervisor)")
	}
	defer f.Close()
	b := make([]byte, 3)
	n, _ := io.ReadFull(f, b)
	if string(b[:n]) != "go\n" {
		return ErrSpawnAborted
	}
	return nil
}

// recordLook is how often awaitStart reads the record untold.
var recordLook = 20 * time.Millisecond

// awaitStart reads the record when the supervisor tells (told) and at
// each tick until it leaves Starting; a supervisor that exits first
// failed.
func (r *Registry) awaitStart(ctx context.Context, name string, told, exited <-chan struct{}) (Record, error) {
	tick := time.NewTicker(recordLook)
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
		case <-told:
			told = nil // told once; the ticks go on
		case <-tick.C:
		}
	}
}

// InheritedStarted is the write end of StartedFD that a supervisor got
// from its spawn or resume (nil without one), kept from every child.
func InheritedStarted() *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(StartedFD, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil // not ours to wrap (an os.File would close it when collected)
	}
	syscall.CloseOnExec(StartedFD)
	return os.NewFile(StartedFD, "started")
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
