package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/spf13/cobra"
)

type denyOptions struct {
	dir      dirFlag
	id       string
	reason   string
	nats     natsFlags
	in       io.Reader
	out, err io.Writer
}

func newDenyCmd() *cobra.Command {
	opts := &denyOptions{}
	cmd := &cobra.Command{
		Use:   "deny ID [--reason TEXT]",
		Short: "Deny a request; the reason goes back to the model",
		Long: `deny decides request ID as denied. A deny wins over an approval that has
not started yet; a request already running cannot be denied (exit 1, "too
late").`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id, opts.in, opts.out, opts.err = args[0], cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runDeny(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.ValidArgsFunction = completePendingIDs(&opts.dir)
	cmd.Flags().StringVar(&opts.reason, "reason", "", "why, for the model")
	opts.nats.bind(cmd, "deny a request of another machine")
	return cmd
}

func runDeny(ctx context.Context, opts *denyOptions) error {
	if opts.nats.url != "" {
		return decideNATS(ctx, &opts.nats, opts.id, team.Deny, opts.reason, "", opts.in, opts.out, opts.err)
	}
	env, err := openDecision(&opts.dir, &opts.id, opts.err)
	if err != nil {
		return err
	}
	defer env.Close()
	res, err := env.ap.Deny(ctx, opts.id, opts.reason)
	switch {
	case errors.Is(err, approver.ErrTooLate):
		return &exitError{code: exitFailure, msg: fmt.Sprintf("too late: request %s is already running", opts.id)}
	case errors.Is(err, approver.ErrAlreadyDecided) && res != nil:
		return &exitError{code: exitFailure, msg: fmt.Sprintf("request %s is already decided: %s by %s",
			opts.id, res.Decision, display.EscapeLine(res.Approver.User))}
	case res == nil && err != nil:
		return &exitError{code: exitFailure, msg: err.Error()}
	}
	fmt.Fprintf(opts.out, "denied %s\n", opts.id)
	if err != nil {
		fmt.Fprintf(opts.err, "sandbox: warning: %v\n", err)
	}
	return nil
}
