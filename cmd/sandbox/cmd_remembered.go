package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type rememberedOptions struct {
	dir      dirFlag
	json     bool
	all      bool
	args     []string
	out, err io.Writer
}

func newRememberedCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remembered",
		Short: "List and forget the folder's remembered decisions (approve always)",
		Args:  cobra.NoArgs,
	}
	list := &rememberedOptions{}
	listCmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the remembered decisions in force, with their IDs",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			list.out, list.err = c.OutOrStdout(), c.ErrOrStderr()
			return runRememberedList(c.Context(), list)
		},
	}
	list.dir.bind(listCmd)
	listCmd.Flags().BoolVar(&list.json, "json", false, "print a JSON array")
	forget := &rememberedOptions{}
	forgetCmd := &cobra.Command{
		Use:   "forget ID...|--all",
		Short: "Forget remembered decisions (by the IDs `remembered list` shows, or all)",
		RunE: func(c *cobra.Command, args []string) error {
			forget.args, forget.out, forget.err = args, c.OutOrStdout(), c.ErrOrStderr()
			return runRememberedForget(c.Context(), forget)
		},
	}
	forget.dir.bind(forgetCmd)
	forgetCmd.Flags().BoolVar(&forget.all, "all", false, "forget every remembered decision of the folder")
	cmd.AddCommand(listCmd, forgetCmd)
	return cmd
}

// rememberedView is one entry as list --json prints it.
type rememberedView struct {
	ID      string    `json:"id"`
	Trigger string    `json:"trigger"`
	Tier    string    `json:"tier"`
	Pattern string    `json:"pattern"`
	Reason  string    `json:"reason,omitempty"`
	By      string    `json:"by,omitempty"`
	Created time.Time `json:"created"`
}

func runRememberedList(_ context.Context, opts *rememberedOptions) error {
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	views := []rememberedView{}
	if st, serr := userstate.Open(false); serr == nil {
		rem, warns := store.LoadRemembered(f, st)
		for _, w := range warns {
			fmt.Fprintf(opts.err, "sandbox: warning: %s\n", display.EscapeLine(w.Message))
		}
		for _, r := range rem {
			views = append(views, rememberedView{ID: r.ID(), Trigger: string(r.Trigger), Tier: r.Tier.String(),
				Pattern: r.Pattern, Reason: r.Reason, By: r.By, Created: r.Created})
		}
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(views)
	}
	if len(views) == 0 {
		fmt.Fprintf(opts.out, "No remembered decisions for %s.\n", display.EscapeLine(f.Root))
		return nil
	}
	tw := tabwriter.NewWriter(opts.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIER\tTRIGGER\tPATTERN\tBY\tCREATED")
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.Tier, v.Trigger, display.EscapeLine(v.Pattern),
			display.EscapeLine(orNone(v.By)), v.Created.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// runRememberedForget forgets entries after auditing the intent: a
// forgotten deny loosens the folder's rules, so only a human may, and the
// log says so first.
func runRememberedForget(_ context.Context, opts *rememberedOptions) error {
	if opts.all == (len(opts.args) > 0) {
		return usageErrorf("remembered forget: give the IDs to forget (see `sandbox remembered list`) or --all, not both")
	}
	if err := approver.RefuseNonHuman(); err != nil {
		return err
	}
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	st, err := userstate.Open(true)
	if err != nil {
		return fmt.Errorf("per-user state: %w", err)
	}
	lg, err := audit.Open(f, st)
	if err != nil {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("not forgotten: the audit log cannot be opened: %v", err)}
	}
	defer lg.Close()
	what := strings.Join(opts.args, ",")
	if opts.all {
		what = "all"
	}
	if _, err := lg.Append(audit.Entry{Actor: "cli", Event: "remembered.forget", Decision: "forget",
		Detail: map[string]any{"ids": what, "user": queue.LocalUser()}}); err != nil {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("not forgotten: the audit log cannot be written: %v", err)}
	}
	gone, err := store.Forget(f, st, opts.args, opts.all)
	if errors.Is(err, store.ErrNotFound) {
		return &exitError{code: exitFailure, msg: err.Error() + " (see `sandbox remembered list`); nothing forgotten"}
	}
	if err != nil {
		return err
	}
	for _, r := range gone {
		fmt.Fprintf(opts.out, "forgot %s: %s %s `%s`\n", r.ID(), r.Tier, r.Trigger, display.EscapeLine(r.Pattern))
	}
	if len(gone) == 0 {
		fmt.Fprintln(opts.out, "No remembered decisions to forget.")
	}
	return nil
}
