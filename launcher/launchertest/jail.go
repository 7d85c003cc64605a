// Package launchertest provides a fake jail for tests of code built on the
// launcher (shims, CI mode, the decider): it reports whatever layers the
// test wants and runs the command WITHOUT any confinement, recording the
// Spec it was given. Never use it outside tests.
package launchertest

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"sync"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// Jail is a fake launcher.Jail. The zero value reports every layer ok.
type Jail struct {
	// Report is what Probe returns; layers not in it are ok.
	Report jailspec.Report

	mu    sync.Mutex
	specs []*jailspec.Spec // guarded by mu: every Spec Start got
}

// Probe returns j.Report with every unreported layer ok.
func (j *Jail) Probe() jailspec.Report {
	r := j.Report
	r.Layers = nil
	for _, l := range jailspec.Layers {
		lr := j.Report.Layer(l)
		if lr.Detail == "not reported by this jail" {
			lr = jailspec.LayerReport{Layer: l, Status: jailspec.StatusOK, Detail: "fake"}
		}
		r.Layers = append(r.Layers, lr)
	}
	return r
}

// Specs returns the specs Start was called with.
func (j *Jail) Specs() []*jailspec.Spec {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]*jailspec.Spec(nil), j.specs...)
}

// Start runs spec.Argv unconfined, with spec's environment, directory
// and streams.
func (j *Jail) Start(_ context.Context, spec *jailspec.Spec) (jailspec.Process, error) {
	j.mu.Lock()
	j.specs = append(j.specs, spec)
	j.mu.Unlock()
	if len(spec.Argv) == 0 {
		return nil, errors.New("launchertest: no command")
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env, cmd.Dir = spec.Env, spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.Stdin, spec.Stdout, spec.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &process{cmd: cmd}, nil
}

type process struct{ cmd *exec.Cmd }

func (p *process) Pid() int                    { return p.cmd.Process.Pid }
func (p *process) Signal(s os.Signal) error    { return p.cmd.Process.Signal(s) }
func (p *process) ProxyListener() net.Listener { return nil }
func (p *process) Forwards() []net.Listener    { return nil }
func (p *process) Kill() error                 { return p.cmd.Process.Kill() }

func (p *process) Wait(ctx context.Context) (jailspec.ExitStatus, error) {
	stop := context.AfterFunc(ctx, func() { p.cmd.Process.Kill() })
	defer stop()
	_ = p.cmd.Wait()
	st := jailspec.ExitStatus{Code: p.cmd.ProcessState.ExitCode()}
	if st.Code < 0 {
		st.Code = 128 + 9
	}
	return st, ctx.Err()
}
