package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/connector/watch"
	"github.com/spf13/cobra"
)

type showOptions struct {
	dir      dirFlag
	id       string
	json     bool
	out, err io.Writer
}

func newShowCmd() *cobra.Command {
	opts := &showOptions{}
	cmd := &cobra.Command{
		Use:   "show ID [--json]",
		Short: "Show everything about a request, escaped, with its content hash",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id, opts.out, opts.err = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runShow(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.ValidArgsFunction = completePendingIDs(&opts.dir)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print {state, request, result} as JSON (not escaped)")
	return cmd
}

// shown is `sandbox show --json`.
type shown struct {
	State   queue.State    `json:"state"`
	Request *queue.Request `json:"request,omitempty"`
	Result  *queue.Result  `json:"result,omitempty"`
}

func runShow(_ context.Context, opts *showOptions) error {
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
	req, state, err := q.Load(opts.id)
	if errors.Is(err, queue.ErrNotFound) || errors.Is(err, queue.ErrInvalid) {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("no request %s in %s", display.EscapeLine(opts.id), f.Root)}
	}
	if err != nil {
		return err
	}
	s := shown{State: state, Request: req}
	if state == queue.StateDone {
		if s.Result, err = q.Result(opts.id); err != nil {
			return err
		}
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(s)
	}
	if req != nil {
		st, err := userstate.Open(true)
		if err != nil {
			return err
		}
		log := stderrLogger(opts.err)
		pass := envPassList(f, st, log)
		src := &review.Source{Folder: f, State: st, EnvPass: pass, Log: log, Jail: grantLines(policyGrant(f, st, log), pass)}
		watch.RenderRequest(opts.out, req, src.Review(req), watch.RenderOptions{Now: time.Now()})
		fmt.Fprintf(opts.out, "  %-8s %s\n", "state", state)
		return nil
	}
	watch.RenderResult(opts.out, s.Result)
	return nil
}
