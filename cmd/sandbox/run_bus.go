package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/launcher"
)

// runBus is a run's side of the folder bus (shims, proxy decisions,
// withdrawals, the CI approver), served while the jail runs.
type runBus struct {
	opts    *runOptions
	bus     *launcher.Bus
	root    string
	started time.Time
	cancel  context.CancelFunc
	done    chan struct{}
}

// startRunBus opens the bus, applies it to lo and serves it.
func startRunBus(ctx context.Context, opts *runOptions, lo *launcher.Options) (*runBus, error) {
	if !opts.ci && (opts.report != "" || opts.failOnDeny) {
		return nil, usageErrorf("invalid argument --report/--fail-on-deny: only with --ci")
	}
	bus, err := launcher.OpenBus(launcher.BusOptions{
		Folder: lo.Folder, Agent: opts.agent, CI: opts.ci, Logger: stderrLogger(opts.stderr),
		NoHookCheckpoints: opts.sharedTmp, // connector mode's one command: its hook ran outside
		Memo:              opts.memo,
	})
	if err != nil {
		return nil, err
	}
	allow := lo.Decider
	bus.Apply(lo)
	if allow != nil {
		lo.Decider = launcher.FirstAllow(allow, lo.Decider)
	}
	if !opts.ci && !opts.quiet {
		fmt.Fprintln(opts.stderr, "sandbox: escalations wait for a human: run `sandbox watch` (or `sandbox serve`) in another terminal")
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &runBus{opts: opts, bus: bus, root: lo.Folder.Root, started: time.Now(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		bus.Serve(sctx)
	}()
	return r, nil
}

// finish stops serving; in CI mode it prints the summary, writes the
// report and says whether anything was denied.
func (r *runBus) finish(code int) (denied bool, err error) {
	r.cancel()
	<-r.done
	defer r.bus.Close()
	ci := r.bus.CI()
	if ci == nil {
		return false, nil
	}
	rep := launcher.NewCIReport(r.root, r.opts.argv, code, r.started, ci.Report())
	rep.WriteSummary(r.opts.stderr)
	if r.opts.report != "" {
		err = rep.WriteJSON(r.opts.report)
	}
	return rep.AnyDenied(), err
}
