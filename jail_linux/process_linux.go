//go:build linux

package jail_linux

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// process is a running jail.
type process struct {
	cmd *exec.Cmd
	cg  cgroup
	ctl supCtl
	ln  net.Listener
	log *slog.Logger

	waitOnce sync.Once
	status   jailspec.ExitStatus
	waitErr  error
}

func newProcess(s *starter) *process {
	return &process{cmd: s.cmd, cg: s.cg, ctl: s.ctl, ln: s.ln, log: s.log}
}

func (p *process) Pid() int                    { return p.cmd.Process.Pid }
func (p *process) ProxyListener() net.Listener { return p.ln }

// Signal goes to the init, which forwards it to the command's group.
func (p *process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill kills the whole jail: the cgroup, and the init (pid 1 of the pid
// namespace, whose death kills the rest).
func (p *process) Kill() error {
	var err error
	if p.cg != nil {
		err = p.cg.kill()
	}
	if kerr := p.cmd.Process.Kill(); kerr != nil && !errors.Is(kerr, os.ErrProcessDone) {
		err = errors.Join(err, kerr)
	}
	return err
}

// Wait waits for the command, then empties and removes the jail.
func (p *process) Wait(ctx context.Context) (jailspec.ExitStatus, error) {
	p.waitOnce.Do(func() { p.status, p.waitErr = p.wait(ctx) })
	return p.status, p.waitErr
}

func (p *process) wait(ctx context.Context) (jailspec.ExitStatus, error) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Kill()
		case <-done:
		}
	}()
	// the init reports the command's end, then exits: the report and the
	// cgroup's counters are read while its exit (freeing its memory, its
	// namespaces) goes on. Its death closes its end of the socket; should
	// anything still hold that end, the reaped init's 50 ms bound the read.
	_ = p.ctl.c.SetReadDeadline(time.Time{})
	waited := make(chan error, 1)
	go func() {
		err := p.cmd.Wait()
		_ = p.ctl.c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		waited <- err
	}()
	st, reported := p.reportedExit()
	werr := <-waited
	close(done)
	if !reported {
		st = p.initStatus()
	}
	if werr != nil {
		p.log.Debug("jail init ended", "err", werr)
	}
	p.log.Debug("jail command ended", "code", st.Code)
	p.release()
	p.log.Debug("jail released")
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	return st, nil
}

// reportedExit waits for the init's report of the command's end, and
// reads the cgroup's counters then: the command and what it waited for
// have ended by that time. ok is false when the init closed its end
// without a report (it died: killed, OOM).
func (p *process) reportedExit() (st jailspec.ExitStatus, ok bool) {
	typ, payload, _, err := p.ctl.recv(0)
	if err != nil || typ != msgExit {
		return st, false
	}
	m, ok := decodeExit(payload)
	if !ok {
		return st, false
	}
	st = jailspec.ExitStatus{Code: m.Code, Signal: m.Signal}
	st.OOMKilled, st.PidsLimit = p.cgEvents()
	return st, true
}

// initStatus is the status of an init that died without a report: its
// own, read after it was reaped.
func (p *process) initStatus() jailspec.ExitStatus {
	var st jailspec.ExitStatus
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st = jailspec.ExitStatus{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	} else {
		st = jailspec.ExitStatus{Code: p.cmd.ProcessState.ExitCode()}
	}
	st.OOMKilled, st.PidsLimit = p.cgEvents()
	return st
}

func (p *process) cgEvents() (oom, pidsMax bool) {
	if p.cg == nil {
		return false, false
	}
	return p.cg.events()
}

// release kills what is left, removes the cgroup, closes the sockets.
func (p *process) release() {
	if p.cg != nil {
		if err := p.cg.kill(); err != nil {
			p.log.Warn("jail kill-all", "err", err)
		}
		if err := p.cg.destroy(); err != nil {
			p.log.Warn("jail cgroup left behind", "err", err)
		}
	}
	if p.ln != nil {
		_ = p.ln.Close()
	}
	_ = p.ctl.c.Close()
}
