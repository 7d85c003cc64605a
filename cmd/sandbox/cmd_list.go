package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"text/tabwriter"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type listOptions struct {
	dir      dirFlag
	args     []string
	json     bool
	state    string
	nats     natsFlags
	out, err io.Writer
}

func newListCmd() *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list [DIR] [--json] [--state pending|claimed|done|all]",
		Short: "List requests (a JSON array with --json)",
		Long: `list prints the requests of a folder, pending ones first, then running,
then done, each oldest first ("nothing pending" when none waits); a pending one is
listed by what made it escalate (its riskiest policy hits). With --json it
prints a JSON array whose elements have at least id, kind, state, summary,
created and hash, and, once done, decision and exit_code.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args, opts.out, opts.err = args, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runList(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array")
	cmd.Flags().StringVar(&opts.state, "state", "all", "pending, claimed, done or all")
	opts.nats.bind(cmd, "list the pending requests of every machine")
	return cmd
}

func runList(ctx context.Context, opts *listOptions) error {
	if opts.nats.url != "" {
		return runListNATS(ctx, &opts.nats, opts.json, opts.out)
	}
	states, err := listStates(opts.state)
	if err != nil {
		return err
	}
	f, err := opts.dir.resolve(opts.args)
	if err != nil {
		return err
	}
	q, err := queue.Open(f, queue.WithLogger(stderrLogger(opts.err)), userKey())
	if err != nil {
		return err
	}
	defer q.Close()
	items, problems := q.List(states...)
	for _, p := range problems {
		fmt.Fprintf(opts.err, "sandbox: %s\n", p.String())
	}
	if items == nil {
		items = []queue.Summary{}
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(items)
	}
	slices.SortStableFunc(items, func(a, b queue.Summary) int { return stateRank(a.State) - stateRank(b.State) })
	if (len(states) == 0 || states[0] == queue.StatePending) && (len(items) == 0 || items[0].State != queue.StatePending) {
		fmt.Fprintf(opts.out, "nothing pending in %s\n", display.EscapeLine(f.Root))
	}
	if len(items) == 0 {
		return nil
	}
	return listTable(opts.out, items, headlines(f, q, items, stderrLogger(opts.err)))
}

// stateRank puts what waits for a human first: pending, then running,
// then done (each oldest first, as queue.List sorts them).
func stateRank(s queue.State) int {
	switch s {
	case queue.StatePending:
		return 0
	case queue.StateClaimed:
		return 1
	}
	return 2
}

// headlines names, for each pending request, what made it escalate (its
// riskiest policy hits, recomputed), which the table shows instead of a
// prefix of the command: `curl … | sudo bash` must not look like `git
// push`.
func headlines(f folder.Folder, q *queue.Queue, items []queue.Summary, log *slog.Logger) map[string]string {
	out := map[string]string{}
	st, err := userstate.Open(true)
	if err != nil {
		return out
	}
	src := &review.Source{Folder: f, State: st, Log: log, Jail: grantLines(policyGrant(f, st, log), envPassList(f, st, log))}
	for _, it := range items {
		if it.State != queue.StatePending {
			continue
		}
		if req, _, err := q.Load(it.ID); err == nil && req != nil {
			out[it.ID] = src.Review(req).Headline(3)
		}
	}
	return out
}

func listStates(s string) ([]queue.State, error) {
	switch s {
	case "all", "":
		return nil, nil
	case "pending", "claimed", "done":
		return []queue.State{queue.State(s)}, nil
	}
	return nil, usageErrorf("--state %q: want pending, claimed, done or all", s)
}

func listTable(w io.Writer, items []queue.Summary, headline map[string]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tKIND\tSESSION\tSUMMARY")
	for _, it := range items {
		state := string(it.State)
		if it.Decision != "" {
			state = string(it.Decision)
			if it.ExitCode != nil {
				state += fmt.Sprintf("(%d)", *it.ExitCode)
			}
		}
		what := it.Summary
		if h := headline[it.ID]; h != "" {
			what = h
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.ID, state, it.Kind,
			display.Truncate(display.EscapeLine(orNone(it.Session)), 24), what)
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
