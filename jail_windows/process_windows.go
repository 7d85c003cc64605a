//go:build windows

package jail_windows

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"sync"

	"github.com/kolesnikovae/go-winjob"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/windows"
)

// process is a running jail: the command and its job, of which the
// supervisor holds the only handle.
type process struct {
	cmd  *exec.Cmd
	job  *winjob.JobObject
	proc windows.Handle
	lw   *limitWatch
	log  *slog.Logger

	mu       sync.Mutex
	released bool // the job handle is closed: Kill must not use it (guarded by mu)

	waitOnce sync.Once
	status   jailspec.ExitStatus
	waitErr  error
}

func newProcess(s *starter) *process {
	return &process{cmd: s.cmd, job: s.job, proc: s.proc, lw: s.lw, log: s.log}
}

func (p *process) Pid() int { return p.cmd.Process.Pid }

// ProxyListener is nil: without a network namespace the launcher serves
// the proxy on its own loopback port.
func (p *process) ProxyListener() net.Listener { return nil }

// Forwards is nil: there is no network namespace to forward into.
func (p *process) Forwards() []net.Listener { return nil }

// Signal kills the jail for os.Kill. For os.Interrupt it does nothing:
// the console delivers Ctrl-C and Ctrl-Break to every process attached to
// it, the command included, and sending it again would deliver it twice.
// Windows has no other signals.
func (p *process) Signal(sig os.Signal) error {
	switch sig {
	case os.Kill:
		return p.Kill()
	case os.Interrupt:
		return nil
	}
	return fmt.Errorf("signal %v: %w", sig, errors.ErrUnsupported)
}

// Kill terminates every process in the job; they exit with KilledCode.
// After Wait has released the job it does nothing.
func (p *process) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return nil
	}
	if err := p.job.TerminateWithExitCode(KilledCode); err != nil {
		return fmt.Errorf("%w: terminate: %w", ErrJob, err)
	}
	return nil
}

// Wait waits for the command, kills whatever it left in the job, and
// releases the job.
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
	_, werr := windows.WaitForSingleObject(p.proc, windows.INFINITE)
	close(done)
	if err := p.Kill(); err != nil { // what the command left behind
		p.log.Warn("jail kill-all", "err", err)
	}
	if err := p.cmd.Wait(); err != nil {
		p.log.Debug("jail command ended", "err", err)
	}
	st := jailspec.ExitStatus{Code: p.cmd.ProcessState.ExitCode()}
	p.release()
	st.OOMKilled, st.PidsLimit = p.lw.oom.Load(), p.lw.pids.Load()
	p.log.Debug("jail released", "code", st.Code)
	if werr != nil {
		return st, fmt.Errorf("wait: %w", werr)
	}
	return st, ctx.Err()
}

// release closes the job (kill-on-close ends anything still in it), the
// completion port and the process handle.
func (p *process) release() {
	p.lw.close()
	p.mu.Lock()
	p.released = true
	if err := p.job.Close(); err != nil {
		p.log.Warn("jail job close", "err", err)
	}
	p.mu.Unlock()
	windows.CloseHandle(p.proc)
}
