package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/spf13/cobra"
)

type approveOptions struct {
	dir      dirFlag
	id       string
	always   bool
	pattern  string
	hash     string
	out, err io.Writer
}

func newApproveCmd() *cobra.Command {
	opts := &approveOptions{}
	cmd := &cobra.Command{
		Use:   "approve ID [--always [--pattern P]] [--hash H]",
		Short: "Approve a pending request and run it here, printing its output",
		Long: `approve claims request ID, runs it in this process (this process is the
broker) and prints its output as it runs. It exits 0 when the request was
executed, whatever the command's own exit code (printed on stderr), and
non-zero when it was not (taken by another approver, denied first, not
found, or the audit log cannot be written). --hash refuses to run anything
but the content you saw with sandbox show.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id, opts.out, opts.err = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runApprove(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&opts.always, "always", false, "also remember a signed decision approving matching requests")
	fl.StringVar(&opts.pattern, "pattern", "", "the pattern to remember with --always (default: the narrowest)")
	fl.StringVar(&opts.hash, "hash", "", "run only if the request's content hash is this")
	return cmd
}

func runApprove(ctx context.Context, opts *approveOptions) error {
	if opts.pattern != "" && !opts.always {
		return &exitError{code: exitUsage, msg: "--pattern needs --always"}
	}
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	env, err := openApprover(f, approver.SurfaceCLI, stderrLogger(opts.err))
	if err != nil {
		return err
	}
	defer env.Close()
	onOutput, flush := cliOutput(opts.out, opts.err)
	res, err := env.ap.Approve(ctx, opts.id, approver.ApproveOptions{
		ShownHash: opts.hash, Always: opts.always, Pattern: opts.pattern, OnOutput: onOutput,
	})
	flush()
	return approveOutcome(opts.err, opts.id, res, err)
}

// cliOutput streams a command's output to our stdout and stderr: raw
// bytes for pipes and files, escaped lines on a terminal (what the agent's
// command prints must not drive the human's terminal).
func cliOutput(out, errw io.Writer) (func(string, []byte), func()) {
	if f, ok := out.(*os.File); ok && isTerminal(int(f.Fd())) {
		live := newLiveOutput(out, 0)
		return live.write, live.flush
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
