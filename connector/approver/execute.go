package approver

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// execute carries out the claimed request from memory and returns its
// result (decision, timing, exit status, capped output, log path). It never
// panics: a panic during execution becomes a `failed` result, so that no
// request stays claimed forever.
func (a *Approver) execute(ctx context.Context, c *queue.Claim, onOutput func(string, []byte)) (res *queue.Result) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			a.log.Error("panic while executing a request", "id", c.ID(), "panic", p, "stack", string(debug.Stack()))
			res = &queue.Result{Decision: queue.Failed, Reason: fmt.Sprintf("bug: execution panicked: %v", p)}
		}
		if res.DurationMS == 0 {
			res.DurationMS = time.Since(start).Milliseconds()
		}
	}()
	if a.execHook != nil {
		a.execHook(c)
	}
	req := c.Request
	switch req.Kind {
	case queue.KindShell:
		return a.runShell(ctx, req, onOutput)
	case queue.KindWrite:
		return a.applyWrite(req)
	case queue.KindRead:
		return a.readFile(req, onOutput)
	case queue.KindNetwork:
		return recordOnly("the egress proxy lets this destination through")
	case queue.KindMCP:
		return recordOnly("recorded; the MCP server carries out the call")
	}
	return &queue.Result{Decision: queue.Failed, Reason: fmt.Sprintf("bug: unknown request kind %q", req.Kind)}
}

func recordOnly(reason string) *queue.Result {
	now := time.Now().UTC()
	return &queue.Result{Decision: queue.Approved, Reason: reason, Started: now, Finished: now}
}

// runShell runs a script with its shell, or an argv directly, through the
// broker, streaming into results/ID.log and the stream index.
func (a *Approver) runShell(ctx context.Context, req *queue.Request, onOutput func(string, []byte)) *queue.Result {
	p := req.Shell
	if p == nil {
		return &queue.Result{Decision: queue.Failed, Reason: "bug: shell request without a payload"}
	}
	logPath := a.f.ResultLog(req.ID)
	show := a.guard(onOutput)
	idx := createStreamIndex(a.f, req.ID, a.log)
	defer idx.close()
	env := broker.Scrub(os.Environ(), a.envPass)
	spec := broker.Spec{
		Script: p.Script, Shell: p.Shell, Argv: p.Argv, Stdin: p.Stdin,
		Root: a.f.Root, Dir: req.Cwd, Env: env,
		Timeout: a.timeout, MaxCapture: queue.DefaultOutputCap, LogPath: logPath,
		OnOutput: func(stream string, b []byte) {
			idx.note(stream, len(b))
			show(stream, b)
		},
	}
	if a.jail != nil {
		spec.Jail, spec.Grant = a.jail, a.GrantFor(req, env)
	}
	oc, err := broker.Run(ctx, spec)
	if oc.Started.IsZero() {
		res := &queue.Result{Decision: queue.Failed, Reason: errText(err, "not started"), Jail: oc.Where}
		if _, serr := os.Lstat(logPath); serr == nil {
			res.LogPath = logPath
		}
		return res
	}
	res := outcomeResult(oc, err, logPath)
	res.Jail = oc.Where
	return res
}

func outcomeResult(oc broker.Outcome, err error, logPath string) *queue.Result {
	code := oc.ExitCode
	res := &queue.Result{
		Decision: queue.Approved, Started: oc.Started.UTC(), Finished: oc.Finished.UTC(),
		ExitCode: &code, Signal: oc.Signal,
		Stdout: oc.Stdout, Stderr: oc.Stderr,
		StdoutTruncated: oc.StdoutTruncated, StderrTruncated: oc.StderrTruncated,
		DurationMS: oc.Duration.Milliseconds(), LogPath: logPath,
	}
	switch {
	case oc.TimedOut:
		res.Reason = "timed out; the process group was killed"
	case err != nil:
		res.Reason = err.Error()
	}
	return res
}

func errText(err error, fallback string) string {
	if err == nil {
		return fallback
	}
	return err.Error()
}

// guard protects the broker from the live-output callback: a panic in it
// (display code) would kill the approver mid-execution from the broker's
// goroutine. After a panic, live output stops; capture and log go on.
func (a *Approver) guard(onOutput func(string, []byte)) func(string, []byte) {
	if onOutput == nil {
		return func(string, []byte) {}
	}
	var broken atomic.Bool
	return func(stream string, b []byte) {
		if broken.Load() {
			return
		}
		defer func() {
			if p := recover(); p != nil {
				broken.Store(true)
				a.log.Error("live output display panicked; output still captured", "panic", p)
			}
		}()
		onOutput(stream, b)
	}
}
