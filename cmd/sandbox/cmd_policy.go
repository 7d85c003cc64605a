package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/policy/textdiff"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/connector/watch"
	"github.com/spf13/cobra"
)

type policyOptions struct {
	dir      dirFlag
	yes      bool
	in       io.Reader
	isTTY    func() bool
	out, err io.Writer
}

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Show, diff and accept the folder's policy (.sandbox/policy.yaml)",
		Args:  cobra.NoArgs,
	}
	sub := func(use, short string, run func(context.Context, *policyOptions) error) *cobra.Command {
		opts := &policyOptions{in: os.Stdin, isTTY: stdinIsTerminal}
		c := &cobra.Command{
			Use: use, Short: short, Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error {
				opts.out, opts.err = c.OutOrStdout(), c.ErrOrStderr()
				return run(c.Context(), opts)
			},
		}
		opts.dir.bind(c)
		if use == "accept" {
			c.Flags().BoolVar(&opts.yes, "yes", false, "accept without asking (for scripts)")
		}
		return c
	}
	cmd.AddCommand(
		sub("show", "Print the policy in force (the last accepted), and say if a change is pending", runPolicyShow),
		sub("diff", "Show the pending change to the policy as a unified diff", runPolicyDiff),
		sub("accept", "Show the pending change, validate it, ask, and accept it", runPolicyAccept),
		newPolicySuggestCmd(),
	)
	return cmd
}

// policyState opens the folder and the per-user state (creating the
// state only when accepting).
func policyState(opts *policyOptions, create bool) (folder.Folder, *userstate.State, error) {
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return folder.Folder{}, nil, err
	}
	st, err := userstate.Open(create)
	if err != nil {
		return folder.Folder{}, nil, fmt.Errorf("per-user state: %w", err)
	}
	return f, st, nil
}

func runPolicyShow(_ context.Context, opts *policyOptions) error {
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	var current, accepted []byte
	changed := true
	if st, serr := userstate.Open(false); serr == nil {
		if current, accepted, changed, err = store.Pending(f, st); err != nil {
			return err
		}
	}
	if accepted == nil {
		fmt.Fprintf(opts.out, "No policy has been accepted for %s: everything escalates.\n", display.EscapeLine(f.Root))
		fmt.Fprintln(opts.out, "Review .sandbox/policy.yaml, then run `sandbox policy accept`.")
		return nil
	}
	fmt.Fprint(opts.out, display.Escape(string(accepted)))
	if changed {
		what := "has changes that are not accepted (`sandbox policy diff`, `sandbox policy accept`)"
		if current == nil {
			what = "is missing; the accepted policy above stays in force"
		}
		fmt.Fprintf(opts.err, "note: %s %s\n", display.EscapeLine(f.Policy()), what)
	}
	return nil
}

func runPolicyDiff(_ context.Context, opts *policyOptions) error {
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	var current, accepted []byte
	changed := true
	if st, serr := userstate.Open(false); serr == nil {
		if current, accepted, changed, err = store.Pending(f, st); err != nil {
			return err
		}
	} else if current, err = store.ReadPolicyFile(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	switch {
	case current == nil:
		fmt.Fprintf(opts.out, "%s is missing; the accepted policy stays in force.\n", display.EscapeLine(f.Policy()))
		return nil
	case !changed:
		fmt.Fprintln(opts.out, "No pending change: .sandbox/policy.yaml is the accepted policy.")
		return nil
	}
	fmt.Fprint(opts.out, display.Escape(policyDiff(accepted, current)))
	if _, perr := policy.Parse(f.Policy(), current); perr != nil {
		fmt.Fprintf(opts.err, "The new policy is invalid and cannot be accepted:\n%s\n", display.Escape(perr.Error()))
	}
	return nil
}

// policyDiff is the diff from the accepted policy (or nothing) to current.
func policyDiff(accepted, current []byte) string {
	from := "accepted policy"
	if accepted == nil {
		from = "/dev/null (nothing accepted)"
	}
	return textdiff.UnifiedDiff(from, ".sandbox/policy.yaml", accepted, current)
}

func runPolicyAccept(_ context.Context, opts *policyOptions) error {
	if err := approver.RefuseNonHuman(); err != nil {
		return err
	}
	f, st, err := policyState(opts, true)
	if err != nil {
		return err
	}
	current, err := store.ReadPolicyFile(f)
	if err != nil {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("cannot read the policy: %v", err)}
	}
	if _, err := policy.Parse(f.Policy(), current); err != nil {
		return &exitError{code: exitFailure, msg: "refusing to accept an invalid policy:\n" + display.Escape(err.Error())}
	}
	accepted, aerr := store.Accepted(f, st)
	if aerr != nil && !errors.Is(aerr, store.ErrNotAccepted) {
		fmt.Fprintf(opts.err, "sandbox: warning: %s\n", display.EscapeLine(aerr.Error()))
	}
	if aerr == nil && string(accepted) == string(current) {
		fmt.Fprintln(opts.out, "Already accepted: .sandbox/policy.yaml is the policy in force.")
		return nil
	}
	if accepted == nil {
		printFirstAcceptance(opts.out, f, current) // policy_first.go
	} else {
		fmt.Fprint(opts.out, display.Escape(policyDiff(accepted, current)))
	}
	if !opts.yes {
		if err := confirmAccept(opts, f); err != nil {
			return err
		}
	}
	if err := store.Accept(f, st, current); err != nil {
		return err
	}
	fmt.Fprintf(opts.out, "Accepted for %s.\n", display.EscapeLine(f.Root))
	return nil
}

// confirmAccept asks y/N on the terminal; without one it refuses.
func confirmAccept(opts *policyOptions, f folder.Folder) error {
	if !opts.isTTY() {
		return &exitError{code: exitFailure,
			msg: "policy accept: stdin is not a terminal; review with `sandbox policy diff`, then run `sandbox policy accept --yes`"}
	}
	fmt.Fprintf(opts.out, "Accept this policy for %s? [y/N] ", display.EscapeLine(f.Root))
	line, _ := bufio.NewReader(io.LimitReader(opts.in, 1024)).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return &exitError{code: exitFailure, msg: "not accepted; the previous policy stays in force"}
}

// stdinIsTerminal uses the approver's terminal check where there is one
// (Linux); elsewhere a character device counts (an empty answer is "no").
func stdinIsTerminal() bool {
	if watch.IsTerminal(int(os.Stdin.Fd())) {
		return true
	}
	fi, err := os.Stdin.Stat()
	return runtime.GOOS != "linux" && err == nil && fi.Mode()&os.ModeCharDevice != 0
}
