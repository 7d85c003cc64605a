package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

func newAuditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Verify or show the folder's tamper-evident audit log",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newAuditVerifyCmd(), newAuditShowCmd())
	return cmd
}

type auditVerifyOptions struct {
	dir      dirFlag
	args     []string
	json     bool
	nats     natsFlags
	host     string
	project  string
	out, err io.Writer
}

func newAuditVerifyCmd() *cobra.Command {
	opts := &auditVerifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [DIR]",
		Short: "Check the audit log's chain, HMACs and anchored head",
		Long: `verify checks every record of the folder's audit log (kept in the per-user state,
where git clean and git stash cannot take it) against the per-user key
and the head anchored in the per-user state. It exits 0 on an intact log and 1
otherwise, naming the first bad record (file:line, seq) and what is wrong:
edited, deleted, reordered, truncated, rewritten, file missing, malformed.
A torn last line left by a crash is reported as a warning, not as tampering.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args, opts.out, opts.err = args, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runAuditVerify(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	opts.nats.bind(cmd, "verify every folder's chain from the team's audit stream")
	cmd.Flags().StringVar(&opts.host, "host", "", "with --nats: only this machine's folders")
	cmd.Flags().StringVar(&opts.project, "project", "", "with --nats: only this project")
	return cmd
}

func runAuditVerify(ctx context.Context, opts *auditVerifyOptions) error {
	if opts.nats.url != "" {
		return runAuditVerifyNATS(ctx, opts)
	}
	f, err := opts.dir.resolve(opts.args)
	if err != nil {
		return err
	}
	st, err := userstate.Open(false)
	if errors.Is(err, fs.ErrNotExist) && !hasRecords(f) {
		fmt.Fprintln(opts.out, "audit log OK: no records (and no per-user key yet)")
		return nil
	}
	if err != nil {
		return &exitError{code: exitAuditBad, msg: fmt.Sprintf("cannot verify the audit log: %v", err)}
	}
	rep, err := audit.Verify(f, st)
	if err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(opts.out, rep)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(opts.err, "sandbox: warning: %s\n", display.EscapeLine(w.String()))
	}
	if !rep.OK {
		return &exitError{code: exitAuditBad, msg: "audit log FAILED verification: " + display.EscapeLine(rep.FirstBad.String())}
	}
	return nil
}

// hasRecords reports whether, without a per-user state (where the log
// lives), an older version's log is still in the project.
func hasRecords(f folder.Folder) bool {
	files, _ := filepath.Glob(filepath.Join(f.Audit(), "*.jsonl"))
	return len(files) > 0
}

func printReport(w io.Writer, rep *audit.Report) {
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "BAD %s\n", display.EscapeLine(p.String()))
	}
	if rep.Dropped > 0 {
		fmt.Fprintf(w, "BAD ... and %d more problems\n", rep.Dropped)
	}
	anchor := "no anchored head"
	if rep.Anchor != nil {
		anchor = fmt.Sprintf("anchored head seq %d", rep.Anchor.Seq)
	}
	status := "OK"
	if !rep.OK {
		status = "FAILED"
	}
	fmt.Fprintf(w, "audit log %s: %d records (files: %d), last seq %d, %s\n",
		status, rep.Records, len(rep.Files), rep.Head.Seq, anchor)
}

type auditShowOptions struct {
	dir      dirFlag
	args     []string
	json     bool
	follow   bool
	after    uint64
	out, err io.Writer
}

func newAuditShowCmd() *cobra.Command {
	opts := &auditShowOptions{}
	cmd := &cobra.Command{
		Use:   "show [DIR] [--json] [--follow]",
		Short: "Print the audit log (escaped lines, or JSON lines with --json)",
		Long: `show prints the records of the audit log in order, one per line with every
control, bidi and invisible character escaped; with --json, the records as JSON
lines exactly as stored. --follow keeps printing new records until interrupted.
A record marked ! fails its HMAC: run "sandbox audit verify". show does not
judge the log; verify does.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args, opts.out, opts.err = args, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runAuditShow(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON lines as stored (not escaped)")
	cmd.Flags().BoolVarP(&opts.follow, "follow", "f", false, "keep printing new records")
	cmd.Flags().Uint64Var(&opts.after, "after", 0, "only records with a higher seq")
	return cmd
}

func runAuditShow(ctx context.Context, opts *auditShowOptions) error {
	f, err := opts.dir.resolve(opts.args)
	if err != nil {
		return err
	}
	st, err := userstate.Open(false)
	if err != nil {
		fmt.Fprintln(opts.out, "no audit records: this user has no per-user state (where the log lives) yet")
		return nil
	}
	key := st.Key
	w := bufio.NewWriter(opts.out)
	defer w.Flush()
	emit := func(r audit.Record) error {
		if err := writeRecord(w, r, opts.json, key != nil); err != nil {
			return err
		}
		if opts.follow {
			return w.Flush()
		}
		return nil
	}
	if !opts.follow {
		return audit.Read(ctx, f, st, opts.after, emit)
	}
	err = audit.Follow(ctx, f, st, opts.after, emit)
	if errors.Is(err, context.Canceled) {
		return nil // Ctrl-C ends --follow
	}
	return err
}

func writeRecord(w io.Writer, r audit.Record, asJSON, checked bool) error {
	if asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	mark := " "
	if checked && !r.Authentic {
		mark = "!"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s#%d %s %s %s", mark, r.Seq, r.Time.UTC().Format("2006-01-02T15:04:05.000Z"), r.Actor, r.Event)
	for _, kv := range [][2]string{{"id", r.RequestID}, {"decision", r.Decision}, {"hash", r.ContentHash}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
		}
	}
	if len(r.Detail) > 0 {
		b.WriteString(" ")
		b.Write(r.Detail)
	}
	_, err := fmt.Fprintln(w, display.EscapeLine(b.String()))
	return err
}
