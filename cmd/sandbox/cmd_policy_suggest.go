package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/policy/textdiff"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type suggestOptions struct {
	dir      dirFlag
	days     int
	min      int
	json     bool
	write    bool
	now      func() time.Time
	out, err io.Writer
}

func newPolicySuggestCmd() *cobra.Command {
	opts := &suggestOptions{now: time.Now}
	cmd := &cobra.Command{
		Use:   "suggest [--days N] [--json] [--write]",
		Short: "Propose the narrowest rules that would have spared your repeated approvals (from the audit log)",
		Long: `suggest verifies the folder's audit log, reads the approvals a human gave
(at watch, the dashboard or the CLI; never CI's or a remembered decision's)
in the last --days, and proposes for each shape approved at least --min
times the narrowest rule covering them, with counts. It prints the change
to the accepted policy as a diff; --write puts it into .sandbox/policy.yaml
as a pending change, which ` + "`sandbox policy diff`" + ` shows and ` + "`sandbox policy accept`" + `
takes. It never proposes a rule for what was denied, for what the policy
denies or a built-in rule escalates, nor one broader than the approvals
where another escalate or deny rule lies (it says so instead).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.out, opts.err = c.OutOrStdout(), c.ErrOrStderr()
			return runPolicySuggest(c.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().IntVar(&opts.days, "days", 30, "learn from the approvals of the last N days")
	cmd.Flags().IntVar(&opts.min, "min", approver.LearnMin, "propose a rule for a shape approved at least N times")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the suggestions and the diff as JSON")
	cmd.Flags().BoolVar(&opts.write, "write", false, "write the change into .sandbox/policy.yaml as a pending change (accept it with `sandbox policy accept`)")
	return cmd
}

// suggestReport is what suggest --json prints.
type suggestReport struct {
	Suggestions []policy.Suggestion `json:"suggestions"`
	Diff        string              `json:"diff,omitempty"`
	Written     bool                `json:"written"`

	changed []byte // the suggested policy.yaml
}

func runPolicySuggest(ctx context.Context, opts *suggestOptions) error {
	if opts.days < 1 || opts.min < 1 {
		return usageErrorf("policy suggest: --days and --min must be at least 1")
	}
	if opts.write {
		if err := approver.RefuseNonHuman(); err != nil {
			return err
		}
	}
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	st, err := userstate.Open(false)
	if err != nil {
		fmt.Fprintln(opts.out, "Nothing to learn from: no approvals have been recorded here yet.")
		return nil
	}
	accepted, err := store.Accepted(f, st)
	if err != nil {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("policy suggest: %v (accept a policy first: `sandbox policy accept`)", err)}
	}
	rep, err := suggest(ctx, f, st, opts, accepted)
	if err != nil {
		return err
	}
	if opts.write && rep.Diff != "" {
		if err := writeSuggested(f, st, rep); err != nil {
			return err
		}
		rep.Written = true
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	printSuggestions(opts.out, rep)
	return nil
}

// suggest learns from the verified audit log and builds the diff.
func suggest(ctx context.Context, f folder.Folder, st *userstate.State, opts *suggestOptions, accepted []byte) (*suggestReport, error) {
	e, _, err := store.Load(f, st, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	since := opts.now().Add(-time.Duration(opts.days) * 24 * time.Hour)
	approvals, err := approver.LearnedApprovals(ctx, f, st, since)
	if errors.Is(err, approver.ErrAuditUntrusted) {
		return nil, &exitError{code: exitFailure, msg: fmt.Sprintf("policy suggest: refusing to learn rules from a log that may be forged: %s (see `sandbox audit verify`)",
			display.EscapeLine(err.Error()))}
	}
	if err != nil {
		return nil, err
	}
	rep := &suggestReport{Suggestions: e.Learn(approvals, opts.min)}
	if rep.Suggestions == nil {
		rep.Suggestions = []policy.Suggestion{}
	}
	changed, err := policy.AddRules(".sandbox/policy.yaml", accepted, rep.Suggestions)
	switch {
	case errors.Is(err, policy.ErrNoRules) && anyWritable(rep.Suggestions):
		fmt.Fprintf(opts.err, "sandbox: %s; add the rules above by hand\n", display.EscapeLine(err.Error()))
	case err == nil:
		rep.Diff = textdiff.UnifiedDiff("accepted policy", ".sandbox/policy.yaml (suggested)", accepted, changed)
		rep.changed = changed
	case !errors.Is(err, policy.ErrNoRules):
		return nil, err
	}
	return rep, nil
}

func anyWritable(ss []policy.Suggestion) bool {
	for _, s := range ss {
		if s.Writable() {
			return true
		}
	}
	return false
}

// writeSuggested writes the suggested policy as policy.yaml, only when
// policy.yaml is the accepted policy (a pending change of the human's is
// never mixed with learned rules).
func writeSuggested(f folder.Folder, st *userstate.State, rep *suggestReport) error {
	_, accepted, changed, err := store.Pending(f, st)
	if err != nil {
		return err
	}
	if changed || accepted == nil {
		return &exitError{code: exitFailure, msg: "policy suggest --write: .sandbox/policy.yaml already has a change that is not accepted; review it first (`sandbox policy diff`, `sandbox policy accept`)"}
	}
	if err := atomicfile.WriteFile(f.Policy(), rep.changed, 0o644); err != nil {
		return fmt.Errorf("policy suggest --write: %w", err)
	}
	return nil
}

func printSuggestions(w io.Writer, rep *suggestReport) {
	if len(rep.Suggestions) == 0 {
		fmt.Fprintln(w, "No repeated approvals to learn from.")
		return
	}
	for _, s := range rep.Suggestions {
		fmt.Fprintf(w, "- %s\n", display.EscapeLine(s.Summary()))
		if len(s.Examples) > 1 || s.Pattern != "" && s.Examples[0] != s.Pattern {
			fmt.Fprintf(w, "    approved as: %s\n", display.EscapeLine("`"+strings.Join(s.Examples, "`, `")+"`"))
		}
		switch {
		case s.Note != "":
			fmt.Fprintf(w, "    %s\n", display.EscapeLine(s.Note))
		case s.Replaces != "":
			fmt.Fprintf(w, "    moves the escalate rule `%s` (policy.yaml:%d) to allow\n", display.EscapeLine(s.Replaces), s.Line)
		default:
			fmt.Fprintf(w, "    adds the allow rule `%s`\n", display.EscapeLine(s.Pattern))
		}
	}
	if rep.Diff == "" {
		return
	}
	fmt.Fprintf(w, "\n%s", display.Escape(rep.Diff))
	if rep.Written {
		fmt.Fprintln(w, "\nWritten to .sandbox/policy.yaml as a pending change: `sandbox policy diff` shows it, `sandbox policy accept` takes it.")
	} else {
		fmt.Fprintln(w, "\nNothing written: `sandbox policy suggest --write` puts this change into .sandbox/policy.yaml for `sandbox policy accept`.")
	}
}
