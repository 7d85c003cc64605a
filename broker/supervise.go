package broker

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// finish waits for the command (killing its group on timeout or
// cancellation), drains its output and fills the Outcome.
func (p *proc) finish(ctx context.Context, s Spec, o *output) (oc Outcome, err error) {
	timedOut, ctxErr := p.supervise(ctx, s.Timeout)
	waitErr := p.reap()
	p.release()
	oc.Finished = time.Now()
	p.drain()
	oc.Started, oc.Duration, oc.TimedOut = p.started, oc.Finished.Sub(p.started), timedOut
	if p.cmd.ProcessState == nil {
		return oc, fmt.Errorf("bug: broker: no process state after wait: %v", waitErr)
	}
	oc.ExitCode, oc.Signal = exitStatus(p.cmd.ProcessState)
	switch {
	case timedOut:
		o.note("timed out after %s; process group killed", s.Timeout)
	case ctxErr != nil:
		o.note("cancelled (%v); process group killed", ctxErr)
	}
	o.fill(&oc)
	if ctxErr != nil {
		return oc, fmt.Errorf("broker: cancelled, process group killed: %w", ctxErr)
	}
	return oc, nil
}

// supervise waits until the leader exits, terminating the group first if
// the timeout passes or ctx ends, then kills whatever is left of the group.
func (p *proc) supervise(ctx context.Context, timeout time.Duration) (timedOut bool, ctxErr error) {
	go p.awaitExit()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		timedOut = true
		p.terminate()
	case <-ctx.Done():
		ctxErr = ctx.Err()
		p.terminate()
	}
	p.killGroup(syscall.SIGKILL)
	return timedOut, ctxErr
}

// terminate sends SIGTERM to the group and SIGKILL after KillGrace, and
// returns once the leader has exited.
func (p *proc) terminate() {
	p.killGroup(syscall.SIGTERM)
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
	select {
	case <-p.exited:
	case <-grace.C:
		p.killGroup(syscall.SIGKILL)
		<-p.exited
	}
}

// reap collects the leader's exit status.
func (p *proc) reap() error {
	if p.reaped {
		return p.waitErr
	}
	return p.cmd.Wait()
}

// drain waits for the output pumps, at most DrainTimeout (a process that
// escaped the group may hold the pipes), then closes our ends.
func (p *proc) drain() {
	done := make(chan struct{})
	go func() { p.pumps.Wait(); close(done) }()
	t := time.NewTimer(DrainTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		closeAll(p.readers)
		<-done
	}
	closeAll(append(p.readers, p.stdin))
}
