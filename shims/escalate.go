package shims

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// MaxWait bounds how long a shim waits for a decision: a request still
// pending then is withdrawn. It is the queue's expiry.
var MaxWait = queue.DefaultExpiry

// escalate submits call as a request and stands in for the command while
// an approver decides and the broker runs it: it streams the output and
// returns the exit code. SIGINT, SIGTERM and SIGHUP withdraw a request
// that is still pending.
func (s *site) escalate(call []string, cwd string, d policy.Decision) int {
	stdin, note := captureStdin(os.Stdin)
	// A shim has no justification to give: the command is all the agent
	// said. The note about standard input is for the agent, not a "why"
	// for the human (who sees the input that is forwarded, or none).
	req := &queue.Request{
		Kind: queue.KindShell, Shell: &queue.ShellPayload{Argv: call, Stdin: stdin},
		Cwd: cwd, Source: queue.SourceShim, Agent: os.Getenv(EnvAgent), Session: os.Getenv(EnvSession),
		PolicyReasons: clip(d.Reasons),
	}
	if note != "" {
		fmt.Fprintf(os.Stderr, "sandbox: %s\n", note)
	}
	return s.submit(req, call)
}

// Submit is escalate for `sandbox request` inside sandbox run's jail,
// where the per-user state is out of reach: req goes onto the folder bus
// as a shim's request does (the supervisor stages it and audits what is
// decided), and Submit stands in for the command until its end, as a
// shim does. call labels the command in messages.
func Submit(f folder.Folder, req *queue.Request, call []string) int {
	s := &site{folder: f}
	return s.submit(req, call)
}

// submit puts req on the bus, directly (the join index is the trusted
// side's), and follows it.
func (s *site) submit(req *queue.Request, call []string) int {
	q, err := queue.Open(s.folder, resultKey())
	if err != nil {
		return refuse("`%s` needs approval, but the queue cannot be opened: %v", show(call), err)
	}
	req.ID = queue.NewID()
	release := holdAlive(alivePath(s.folder, req.ID)) // before the request is visible
	defer release()
	// caught before the request is visible: a Ctrl-C as soon as it shows
	// withdraws it, instead of killing the shim with its request pending
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	id, err := q.SubmitDirect(context.Background(), req)
	if err != nil {
		return refuse("`%s` needs approval, but the request could not be made: %v", show(call), err)
	}
	if os.Getenv(EnvCI) != "1" {
		fmt.Fprintf(os.Stderr, "sandbox: `%s` needs a human's approval (request %s); waiting for `sandbox watch` (Ctrl-C withdraws)\n", show(call), id)
		if s.folder.ApproverWatching() == folder.PresenceNobody {
			fmt.Fprintf(os.Stderr, "sandbox: %s\n", s.folder.HowToApprove())
		}
	}
	return s.follow(q, id, call, sigs)
}

// follow waits for id's result, streaming its output, and maps the
// result to an exit code; a signal on sigs withdraws the request.
func (s *site) follow(q *queue.Queue, id string, call []string, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithTimeout(context.Background(), MaxWait)
	defer cancel()
	var got os.Signal
	go func() {
		select {
		case got = <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := approver.Follow(ctx, q, id, os.Stdout, os.Stderr, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil && ctx.Err() != nil {
		return s.stopWaiting(q, id, call, got)
	}
	if err != nil {
		return refuse("`%s`: waiting for request %s: %v", show(call), id, err)
	}
	return outcome(res, call)
}

// stopWaiting withdraws id after a signal or MaxWait.
func (s *site) stopWaiting(q *queue.Queue, id string, call []string, sig os.Signal) int {
	code, why := ExitRefused, fmt.Sprintf("nobody decided within %s", MaxWait)
	if sig != nil {
		code, why = 128+signalNumber(sig), "interrupted ("+sig.String()+")"
	}
	res, err := withdraw(q, id, "the shim was "+why+" before anyone decided")
	switch {
	case err == nil && res != nil && res.Decision != queue.Withdrawn:
		fmt.Fprintf(os.Stderr, "sandbox: `%s` %s, but request %s was already %s; see `sandbox result %s`\n", show(call), why, id, res.Decision, id)
	case err != nil:
		fmt.Fprintf(os.Stderr, "sandbox: `%s` %s; request %s was not withdrawn: %v\n", show(call), why, id, err)
	default:
		fmt.Fprintf(os.Stderr, "sandbox: `%s` %s; request %s withdrawn\n", show(call), why, id)
	}
	return code
}

// outcome prints what a result means for the caller and returns the
// exit code.
func outcome(res *queue.Result, call []string) int {
	switch res.Decision {
	case queue.Approved:
		if res.ExitCode != nil {
			return *res.ExitCode
		}
		return 0
	case queue.Denied:
		who := res.Approver.User
		if res.Approver.Surface == approver.SurfaceCI {
			who = "CI mode"
		}
		return refuse("`%s` was denied by %s: %s", show(call), who, orNone(res.Reason))
	case queue.Failed:
		return refuse("`%s` was approved but could not run: %s", show(call), orNone(res.Reason))
	}
	return refuse("`%s` was not run: %s (%s)", show(call), res.Decision, orNone(res.Reason))
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// clip bounds the policy reasons a request carries (the queue's limits).
func clip(reasons []string) []string {
	if len(reasons) > 64 {
		reasons = reasons[:64]
	}
	out := make([]string, len(reasons))
	for i, r := range reasons {
		if len(r) > 2000 {
			r = strings.ToValidUTF8(r[:2000], "")
		}
		out[i] = r
	}
	return out
}

func signalNumber(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return int(n)
	}
	return 2
}

// resultKey has the queue verify results with the per-user key outside
// the jail. Inside it the key is out of reach (hidden) and not needed:
// done/ is read-only there and the trusted side stages nothing where the
// jail can write, so every result the shim can see came from outside.
func resultKey() queue.Option {
	if os.Getenv(EnvJail) == "1" {
		return func(*queue.Queue) {}
	}
	st, err := userstate.Open(false)
	if err != nil {
		return func(*queue.Queue) {}
	}
	return queue.WithKey(st.Key)
}
