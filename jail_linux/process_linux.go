//go:build linux

package jail_linux

import (
	"context"
	"errors"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
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
	cmd  *exec.Cmd
	cg   cgroup
	ctl  supCtl
	ln   net.Listener
	fwd  []net.Listener
	log  *slog.Logger
	outs []*output // drained once the jail is killed
	pins *pins     // released once the jail is empty
	// refill starts the Jail's next spare init once this jail is gone
	refill func()
	// ended is Spec.Ended; end is the init's report of the command's end
	// once read (nil: none, or unreadable)
	ended   func(jailspec.ExitStatus)
	end     *jailinit.ExitMsg
	endRead bool

	waitOnce sync.Once
	status   jailspec.ExitStatus
	waitErr  error
}

func newProcess(s *starter) *process {
	return &process{cmd: s.cmd, cg: s.cg, ctl: s.ctl, ln: s.ln, fwd: s.fwd, log: s.log, outs: s.outs, pins: s.pins,
		refill: s.refill, ended: s.spec.Ended}
}

func (p *process) Pid() int                    { return p.cmd.Process.Pid }
func (p *process) ProxyListener() net.Listener { return p.ln }
func (p *process) Forwards() []net.Listener    { return p.fwd }

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
	var werr error
	if p.ended == nil {
		werr = p.cmd.Wait()
	} else {
		// the report comes before the init exits; once it has exited, the
		// report is there at once or never (its end of the socket may be
		// held open elsewhere)
		waited := make(chan error, 1)
		_ = p.ctl.c.SetReadDeadline(time.Time{})
		go func() {
			err := p.cmd.Wait()
			_ = p.ctl.c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			waited <- err
		}()
		if st, ok := p.awaitEnd(); ok {
			p.ended(st)
		}
		werr = <-waited
	}
	close(done)
	st := p.exitStatus(werr)
	p.log.Debug("jail command ended", "code", st.Code)
	p.release()
	for _, o := range p.outs {
		o.drain() // every jailed writer is dead now (or outside any cgroup: bounded)
	}
	p.pins.release(p.log)
	p.log.Debug("jail released")
	if p.refill != nil {
		p.refill()
	}
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	return st, nil
}

// exitStatus prefers the init's report of the command's end; if the init
// itself died (killed, OOM), its own status counts.
func (p *process) exitStatus(werr error) jailspec.ExitStatus {
	st, ok := p.reportedExit()
	if !ok {
		st = p.initStatus()
	}
	if p.cg != nil {
		st.OOMKilled, st.PidsLimit = p.cg.events()
	}
	if werr != nil {
		p.log.Debug("jail init ended", "err", werr)
	}
	return st
}

// awaitEnd reads the init's report of the command's end as soon as it is
// sent, before the init exits; ok when the init says nothing of the jail
// runs any more (jailinit.Emptied). The status has the cgroup's events.
func (p *process) awaitEnd() (jailspec.ExitStatus, bool) {
	m := p.readReport(-1)
	if m == nil || !m.Alone {
		return jailspec.ExitStatus{}, false
	}
	st := jailspec.ExitStatus{Code: m.Code, Signal: m.Signal}
	if p.cg != nil {
		st.OOMKilled, st.PidsLimit = p.cg.events()
	}
	return st, true
}

// readReport reads the init's exit report, once (a timeout below 0 keeps
// the socket's deadline as it is); nil when there is none or it is
// unreadable.
func (p *process) readReport(timeout time.Duration) *jailinit.ExitMsg {
	if !p.endRead {
		p.endRead = true
		typ, payload, _, err := p.ctl.recv(timeout)
		if m, ok := jailinit.DecodeExit(payload); err == nil && typ == msgExit && ok {
			p.end = &m
		}
	}
	return p.end
}

// reportedExit is the init's report of the command's end; ok is false
// when there is none or it cannot be read (then the init's own status
// counts, never a zero "success").
func (p *process) reportedExit() (jailspec.ExitStatus, bool) {
	m := p.readReport(50 * time.Millisecond)
	if m == nil {
		return jailspec.ExitStatus{}, false
	}
	return jailspec.ExitStatus{Code: m.Code, Signal: m.Signal}, true
}

// initStatus is the init's own status, after it was reaped.
func (p *process) initStatus() jailspec.ExitStatus {
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return jailspec.ExitStatus{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	}
	return jailspec.ExitStatus{Code: p.cmd.ProcessState.ExitCode()}
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
	for _, ln := range p.fwd {
		_ = ln.Close()
	}
	_ = p.ctl.c.Close()
}
