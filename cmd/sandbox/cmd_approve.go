package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/watch"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/spf13/cobra"
)

type approveOptions struct {
	dir      dirFlag
	id       string
	always   bool
	pattern  string
	hash     string
	staleOK  bool
	nats     natsFlags
	in       io.Reader
	out, err io.Writer
}

func newApproveCmd() *cobra.Command {
	opts := &approveOptions{}
	cmd := &cobra.Command{
		Use:   "approve ID (--hash H | on a terminal) [--always [--pattern P]] [--stale-ok]",
		Short: "Approve a pending request and run it here, printing its output",
		Long: `approve claims request ID, runs it in this process (this process is the
broker) and prints its output as it runs. It exits 0 when the request was
executed, whatever the command's own exit code (printed on stderr), and
non-zero when it was not (taken by another approver, denied first, not
found, changed, or the audit log cannot be written).

An approval names what it approves: --hash H runs the request only if its
content hash is H (sandbox show and list --json print it), and nothing runs
otherwise. Without --hash, on a terminal, approve prints the whole request
first (where it runs, every policy hit riskiest first, the whole payload)
and asks; anywhere else it refuses. A request whose requester stopped
waiting (nobody would receive the output) needs --stale-ok.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id, opts.in, opts.out, opts.err = args[0], cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runApprove(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.ValidArgsFunction = completePendingIDs(&opts.dir)
	fl := cmd.Flags()
	fl.BoolVar(&opts.always, "always", false, "also remember a signed decision approving matching requests")
	fl.StringVar(&opts.pattern, "pattern", "", "the pattern to remember with --always (default: the narrowest)")
	fl.StringVar(&opts.hash, "hash", "", "the content hash you were shown: run only if the request still has it (required off a terminal)")
	fl.BoolVar(&opts.staleOK, "stale-ok", false, "approve even if nobody waits for the request any more")
	opts.nats.bind(cmd, "approve a request of another machine")
	return cmd
}

func runApprove(ctx context.Context, opts *approveOptions) error {
	if opts.nats.url != "" {
		if opts.always {
			return usageErrorf("--always is local: a remote approval decides one request")
		}
		return decideNATS(ctx, &opts.nats, opts.id, team.Approve, "", opts.hash, opts.in, opts.out, opts.err)
	}
	if opts.pattern != "" && !opts.always {
		return usageErrorf("--pattern needs --always")
	}
	env, err := openDecision(&opts.dir, &opts.id, opts.err)
	if err != nil {
		return err
	}
	defer env.Close()
	hash, err := shownHash(env, opts)
	if err != nil {
		return err
	}
	onOutput, flush := cliOutput(opts.out, opts.err)
	res, err := env.ap.Approve(ctx, opts.id, approver.ApproveOptions{
		ShownHash: hash, Always: opts.always, Pattern: opts.pattern, OnOutput: onOutput,
	})
	flush()
	return approveOutcome(opts.err, opts.id, res, err)
}

// shownHash is the content hash this approval names: --hash, checked
// against the request before anything is claimed (a wrong hash leaves the
// request pending), or, on a terminal, the hash of the request printed
// whole and confirmed. A stale request needs --stale-ok.
func shownHash(env *approverEnv, opts *approveOptions) (string, error) {
	req, st, err := env.q.Load(opts.id)
	if err != nil || st != queue.StatePending || req == nil {
		if opts.hash != "" {
			return opts.hash, nil // the claim says why (taken, decided, not found)
		}
		return "", &exitError{code: exitFailure, msg: approveError(opts.id, notPending(opts.id, st, err))}
	}
	rv := env.src.Review(req)
	terminal := isTerminalWriter(opts.out) && isTerminalReader(opts.in)
	if terminal || (opts.hash != "" && isTerminalWriter(opts.out)) {
		watch.RenderRequest(opts.out, req, rv, watch.RenderOptions{Now: time.Now()})
	}
	if rv.Stale != "" && !opts.staleOK {
		return "", &exitError{code: exitFailure, msg: fmt.Sprintf("request %s is stale (%s); nothing ran. --stale-ok approves it anyway", opts.id, rv.Stale)}
	}
	switch {
	case opts.hash != "" && opts.hash != req.Hash:
		return "", &exitError{code: exitFailure, msg: fmt.Sprintf("request %s is not the one shown: its hash is %.12s…, --hash names %.12s…; nothing ran",
			opts.id, req.Hash, display.EscapeLine(opts.hash))}
	case opts.hash != "":
		return opts.hash, nil
	case !terminal:
		return "", usageErrorf("approve needs --hash HASH (the content hash sandbox show or list --json printed) when it is not on a terminal; nothing ran")
	}
	fmt.Fprintf(opts.out, "Run request %s (hash %.12s…) here, now? [y/N] ", req.ID, req.Hash)
	line, _ := bufio.NewReader(opts.in).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return "", &exitError{code: exitFailure, msg: fmt.Sprintf("not approved; %s is still pending", req.ID)}
	}
	return req.Hash, nil
}

// notPending is why a request that is not pending cannot be approved.
func notPending(id string, st queue.State, err error) error {
	switch {
	case err == nil && st == queue.StateDone:
		return fmt.Errorf("%s: %w", id, approver.ErrAlreadyDecided)
	case err == nil && st == queue.StateClaimed:
		return fmt.Errorf("%s: %w", id, approver.ErrAlreadyTaken)
	case errors.Is(err, queue.ErrNotFound):
		return fmt.Errorf("%s: %w", id, approver.ErrNotFound)
	case err != nil:
		return err
	}
	return fmt.Errorf("%s: %w", id, approver.ErrNotFound)
}

func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && watch.IsTerminal(int(f.Fd()))
}

func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && watch.IsTerminal(int(f.Fd()))
}

// cliOutput streams a command's output to our stdout and stderr: raw
// bytes for pipes and files, escaped lines on a terminal (what the agent's
// command prints must not drive the human's terminal).
func cliOutput(out, errw io.Writer) (func(string, []byte), func()) {
	if f, ok := out.(*os.File); ok && watch.IsTerminal(int(f.Fd())) {
		return watch.LiveOutput(out)
	}
	return func(stream string, p []byte) {
		if stream == "stderr" {
			errw.Write(p)
		} else {
			out.Write(p)
		}
	}, func() {}
}

// approveOutcome reports how an approval ended; executed is exit 0.
func approveOutcome(w io.Writer, id string, res *queue.Result, err error) error {
	if res == nil {
		return &exitError{code: exitFailure, msg: approveError(id, err)}
	}
	if errors.Is(err, approver.ErrNotRemembered) {
		fmt.Fprintf(w, "sandbox: warning: %v\n", err)
		err = nil
	}
	switch {
	case errors.Is(err, approver.ErrSelfProtected):
		return &exitError{code: exitDenied, msg: fmt.Sprintf("request %s refused, nothing ran: %s", id, display.EscapeLine(err.Error()))}
	case res.Decision == queue.Denied:
		return &exitError{code: exitDenied, msg: fmt.Sprintf("request %s was denied by %s before it started: %s",
			id, display.EscapeLine(res.Approver.User), display.EscapeLine(res.Reason))}
	case res.Decision != queue.Approved:
		return &exitError{code: exitFailure, msg: fmt.Sprintf("request %s %s: %s", id, res.Decision, display.EscapeLine(res.Reason))}
	case res.ExitCode != nil:
		fmt.Fprintf(w, "sandbox: request %s ran; exit code %d\n", id, *res.ExitCode)
	default:
		fmt.Fprintf(w, "sandbox: request %s approved (%s)\n", id, display.EscapeLine(res.Reason))
	}
	if res.Always != "" {
		fmt.Fprintf(w, "sandbox: remembered: %s\n", display.EscapeLine(res.Always))
	}
	return err
}

func approveError(id string, err error) string {
	switch {
	case errors.Is(err, approver.ErrAlreadyTaken):
		return fmt.Sprintf("request %s: another approver has already taken it", id)
	case errors.Is(err, approver.ErrAlreadyDecided):
		return fmt.Sprintf("request %s is already decided (sandbox result %s)", id, id)
	case errors.Is(err, approver.ErrAuditRefused):
		return fmt.Sprintf("refused, nothing ran: %v", err)
	case errors.Is(err, queue.ErrBadFile):
		return fmt.Sprintf("request %s refused, nothing ran: %v", id, err)
	}
	return err.Error()
}
