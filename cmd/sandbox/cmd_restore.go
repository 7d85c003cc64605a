package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/originals"
	"github.com/spf13/cobra"
)

type restoreOptions struct {
	dir     dirFlag
	args    []string
	list    bool
	ckID    string
	session string
	all     bool
	yes     bool
	out     io.Writer
	err     io.Writer
}

func newRestoreCmd() *cobra.Command {
	opts := &restoreOptions{}
	cmd := &cobra.Command{
		Use:   "restore [DIR] [--list | PATH... | --session ID | --all | --checkpoint ID] [--yes]",
		Short: "Put back files as they were before the agent changed them (dry run unless --yes)",
		Long: `restore brings back the originals that the hooks kept before each allowed
Write, Edit, MultiEdit or NotebookEdit: each file is replaced atomically, and a
file the agent created is removed. PATH... restores those files, --session the
files one agent session changed (to their state before that session), --all
every file. Without --yes it only prints what it would do. --list shows every
original kept; with nothing named, restore lists the originals and the
checkpoints it could bring back.

--checkpoint ID brings back what one checkpoint kept (see ` + "`sandbox checkpoints`" + `):
the files and directories an allowed command or edit deleted or overwrote,
byte for byte with their modes, deleted directories recreated; a file the
call created is removed. Files that appeared since inside a kept directory
are left alone, and nothing is written through a link planted in the
project (such paths are reported as conflicts).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args, opts.out, opts.err = args, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runRestore(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().BoolVar(&opts.list, "list", false, "list the originals kept")
	cmd.Flags().StringVar(&opts.session, "session", "", "restore what this agent session changed")
	cmd.Flags().StringVar(&opts.ckID, "checkpoint", "", "restore what this checkpoint kept")
	cmd.Flags().BoolVar(&opts.all, "all", false, "restore every file that has an original")
	cmd.Flags().BoolVar(&opts.yes, "yes", false, "apply (default: dry run)")
	return cmd
}

// restoreTarget splits the arguments into the folder (--dir, or a first
// argument that is a sandbox folder) and the paths to restore.
func restoreTarget(opts *restoreOptions) (folder.Folder, []string, error) {
	paths := opts.args
	if opts.dir.dir == "" && len(paths) > 0 {
		if f, err := folder.New(paths[0]); err == nil && f.Exists() {
			return f, paths[1:], nil
		}
	}
	f, err := folder.Resolve(opts.dir.dir, nil)
	return f, paths, err
}

func runRestore(_ context.Context, opts *restoreOptions) error {
	f, paths, err := restoreTarget(opts)
	if err != nil {
		return err
	}
	modes := 0
	for _, on := range []bool{opts.list, opts.session != "", opts.all, len(paths) > 0, opts.ckID != ""} {
		if on {
			modes++
		}
	}
	if modes == 0 {
		return restoreOverview(opts, f) // restore_overview.go
	}
	if modes != 1 {
		return usageErrorf("restore: give exactly one of --list, PATH..., --session ID, --all or --checkpoint ID")
	}
	if opts.ckID != "" {
		return restoreCheckpoint(opts, f)
	}
	store := originals.Open(f)
	if opts.list {
		return listOriginals(opts.out, store)
	}
	sel := originals.Selection{All: opts.all, Session: opts.session}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		sel.Paths = append(sel.Paths, abs)
	}
	plan, err := store.Plan(sel)
	if err != nil {
		return err
	}
	return applyRestore(opts, store, plan)
}

func applyRestore(opts *restoreOptions, store *originals.Store, plan []originals.Action) error {
	changes := 0
	for _, a := range plan {
		fmt.Fprintf(opts.out, "%-9s %s%s\n", a.Op, display.EscapeLine(a.Path), restoreNote(a))
		if a.Op == originals.OpRestore || a.Op == originals.OpRemove {
			changes++
		}
	}
	switch {
	case changes == 0:
		fmt.Fprintln(opts.out, "nothing to restore")
		return nil
	case !opts.yes:
		fmt.Fprintf(opts.out, "dry run: %d file(s) would change; run again with --yes to apply\n", changes)
		return nil
	}
	if err := store.Apply(plan); err != nil {
		return &exitError{exitFailure, "restore: " + oneLine(err.Error())}
	}
	fmt.Fprintf(opts.out, "restored %d file(s)\n", changes)
	return nil
}

func restoreNote(a originals.Action) string {
	switch a.Op {
	case originals.OpRestore:
		return fmt.Sprintf("  (as of %s, session %s)", a.Entry.Time.Local().Format("2006-01-02 15:04:05"), orDash(a.Entry.Session))
	case originals.OpRemove:
		return fmt.Sprintf("  (created by the agent in session %s)", orDash(a.Entry.Session))
	case originals.OpNone:
		return "  (no original kept)"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return display.EscapeLine(s)
}

func listOriginals(out io.Writer, store *originals.Store) error {
	entries, bad, err := store.Entries()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tSESSION\tTOOL USE\tORIGINAL\tPATH")
	for _, e := range entries {
		state := "(did not exist)"
		if e.Existed {
			state = "sha256:" + e.Hash[:12]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format("2006-01-02 15:04:05"),
			orDash(e.Session), orDash(e.ToolUseID), state, display.EscapeLine(e.Path))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "sandbox: %d unreadable line(s) in the originals index were skipped\n", bad)
	}
	return nil
}
