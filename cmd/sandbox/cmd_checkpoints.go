package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type checkpointsOptions struct {
	dir      dirFlag
	args     []string
	session  string
	json     bool
	prune    bool
	out, err io.Writer
}

func newCheckpointsCmd() *cobra.Command {
	opts := &checkpointsOptions{}
	cmd := &cobra.Command{
		Use:   "checkpoints [DIR] [--session ID] [--json] [--prune]",
		Short: "List the checkpoints kept before allowed commands and edits changed files",
		Long: `checkpoints lists, oldest first, what the hooks kept before an allowed
command deleted or overwrote files in the project (rm, mv, sed -i, >, git
checkout/restore/reset/clean, ...) and before each Write or Edit: id, time,
session, tool call, files kept, their size, and the command. Bring one back
with ` + "`sandbox restore --checkpoint ID`" + `. --prune removes checkpoints older
than 7 days and the oldest beyond 1 GiB now (the hooks do it hourly).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args, opts.out, opts.err = args, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runCheckpoints(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().StringVar(&opts.session, "session", "", "only this agent session's checkpoints")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of the checkpoint records")
	cmd.Flags().BoolVar(&opts.prune, "prune", false, "prune old checkpoints now")
	return cmd
}

// openCheckpoints opens the folder's checkpoint store in the per-user state.
func openCheckpoints(f folder.Folder, errOut io.Writer) (*checkpoint.Store, error) {
	st, err := userstate.Open(false)
	if err != nil {
		return nil, fmt.Errorf("per-user state: %w", err)
	}
	return live.StoreFor(st, f.Root, stderrLogger(errOut))
}

func runCheckpoints(_ context.Context, opts *checkpointsOptions) error {
	f, err := opts.dir.resolve(opts.args)
	if err != nil {
		return err
	}
	store, err := openCheckpoints(f, opts.err)
	if err != nil {
		return err
	}
	if opts.prune {
		r, err := store.Prune()
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.out, "pruned %d checkpoint(s) and %d object(s), %s freed; %d checkpoint(s) left, %s\n",
			r.Records, r.Objects, humanSize(r.Bytes), r.Kept, humanSize(r.Size))
		return nil
	}
	list, bad, err := store.List(opts.session)
	if err != nil {
		return err
	}
	if bad > 0 {
		fmt.Fprintf(opts.err, "sandbox: %d unreadable checkpoint record(s) were skipped\n", bad)
	}
	if opts.json {
		if list == nil {
			list = []*checkpoint.Checkpoint{}
		}
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(list)
	}
	return checkpointTable(opts.out, list)
}

func checkpointTable(out io.Writer, list []*checkpoint.Checkpoint) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tSESSION\tTOOL USE\tFILES\tSIZE\tCOMMAND")
	for _, ck := range list {
		files := fmt.Sprint(ck.Files)
		if ck.NotKeptCount > 0 {
			files += fmt.Sprintf(" (%d not kept)", ck.NotKeptCount)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ck.ID, ck.Time.Local().Format("2006-01-02 15:04:05"),
			orDash(ck.Session), orDash(ck.ToolUseID), files, humanSize(ck.Bytes), clip(display.EscapeLine(ck.Command), 80))
	}
	return tw.Flush()
}

// size prints a byte count for humans.
func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
