package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/spf13/cobra"
)

type resultOptions struct {
	dir      dirFlag
	id       string
	wait     time.Duration
	out, err io.Writer
}

func newResultCmd() *cobra.Command {
	opts := &resultOptions{}
	cmd := &cobra.Command{
		Use:   "result ID",
		Short: "Print a request's output and exit with its exit code",
		Long: `result prints the output of request ID (stdout to stdout, stderr to stderr)
and exits with its exit code: 126 when it was denied, 124 when it is still
pending after --wait (or expired or was withdrawn), 125 when it failed to
run or was interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id, opts.out, opts.err = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runResult(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.ValidArgsFunction = completePendingIDs(&opts.dir)
	cmd.Flags().DurationVar(&opts.wait, "wait", 0, "wait up to this long for the result (0: do not wait)")
	return cmd
}

func runResult(ctx context.Context, opts *resultOptions) error {
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	if opts.id, err = resolveID(f, opts.id); err != nil {
		return err
	}
	q, err := queue.Open(f, queue.WithLogger(stderrLogger(opts.err)), userKey())
	if err != nil {
		return err
	}
	defer q.Close()
	if !queue.ValidID(opts.id) {
		return usageErrorf("%q is not a request id", opts.id)
	}
	if _, _, err := q.Load(opts.id); errors.Is(err, queue.ErrNotFound) {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("no request %s in %s", opts.id, f.Root)}
	}
	wctx, cancel := resultContext(ctx, q, opts)
	if wctx == nil {
		return &exitError{code: exitTimeout, msg: fmt.Sprintf("request %s is still pending", opts.id)}
	}
	defer cancel()
	res, err := approver.Follow(wctx, q, opts.id, opts.out, opts.err, nil)
	return waitOutcome(ctx, opts.id, res, err)
}

// waitOutcome turns the end of a wait into the exit status.
func waitOutcome(ctx context.Context, id string, res *queue.Result, err error) error {
	switch {
	case err == nil:
		code, msg := resultExit(res)
		return &exitError{code: code, msg: msg}
	case ctx.Err() != nil:
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf("interrupted; request %s no longer waited for", id)}
	case errors.Is(err, context.DeadlineExceeded):
		return &exitError{code: exitTimeout, msg: fmt.Sprintf("request %s is still pending", id)}
	}
	return err
}

// resultContext bounds the wait: none when the result exists, --wait
// otherwise; nil when there is no result and no wait.
func resultContext(ctx context.Context, q *queue.Queue, opts *resultOptions) (context.Context, context.CancelFunc) {
	if _, err := q.Result(opts.id); err == nil {
		return context.WithCancel(ctx)
	}
	if opts.wait <= 0 {
		return nil, nil
	}
	return context.WithTimeout(ctx, opts.wait)
}
