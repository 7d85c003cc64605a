package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/spf13/cobra"
)

// keysOptions are the flags of `sandbox keys ...`.
type keysOptions struct {
	dir    dirFlag
	force  bool
	name   string
	scopes []string
	out    io.Writer
}

func newKeysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Team mode: your approver key, and the keys a folder trusts to decide its requests from another machine",
		Args:  cobra.NoArgs,
	}
	newOpts := &keysOptions{}
	newCmd := &cobra.Command{
		Use:   "new [--force]",
		Short: "Make your approver key (ed25519; the private half stays in your per-user state) and print its public half",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			newOpts.out = c.OutOrStdout()
			return runKeysNew(c.Context(), newOpts)
		},
	}
	newCmd.Flags().BoolVar(&newOpts.force, "force", false, "replace the key you have (policies that trust the old one no longer trust you)")
	showCmd := &cobra.Command{
		Use:   "show",
		Short: "Print your approver key's public half, on one line (what `keys trust` takes)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runKeysShow(c.Context(), c.OutOrStdout())
		},
	}
	trust := &keysOptions{}
	trustCmd := &cobra.Command{
		Use:   "trust PUBKEY --name NAME [--scope PATTERN]... [--dir DIR]",
		Short: "List an approver's key in the folder's policy.yaml (in force once the policy is accepted)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			trust.out = c.OutOrStdout()
			return runKeysTrust(c.Context(), trust, args[0])
		},
	}
	trust.dir.bind(trustCmd)
	trustCmd.Flags().StringVar(&trust.name, "name", "", "who the key is, as approvals show it (letters, digits, ._@+-)")
	trustCmd.Flags().StringArrayVar(&trust.scopes, "scope", nil,
		"what the key may decide (repeatable; none: every request of the folder): kind:K, command:PATTERN, host:GLOB, project:GLOB")
	cmd.AddCommand(newCmd, showCmd, trustCmd)
	return cmd
}

func runKeysNew(_ context.Context, o *keysOptions) error {
	if err := approver.RefuseNonHuman(); err != nil {
		return err
	}
	dir, err := userstate.DefaultDir()
	if err != nil {
		return err
	}
	pub, err := team.NewKey(dir, o.force)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.out, policy.FormatApproverKey(pub))
	return nil
}

func runKeysShow(_ context.Context, out io.Writer) error {
	dir, err := userstate.DefaultDir()
	if err != nil {
		return err
	}
	priv, err := team.LoadKey(dir)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, team.PublicKey(priv))
	return nil
}

func runKeysTrust(_ context.Context, o *keysOptions, key string) error {
	if err := approver.RefuseNonHuman(); err != nil {
		return err
	}
	if o.name == "" {
		return usageErrorf("keys trust: --name is required (who the key is, as approvals show it)")
	}
	f, err := o.dir.resolve(nil)
	if err != nil {
		return err
	}
	src, err := store.ReadPolicyFile(f)
	if err != nil {
		return fmt.Errorf("cannot read the policy: %w", err)
	}
	out, err := policy.AddApprover(f.Policy(), src, policy.Approver{Name: o.name, Key: strings.TrimSpace(key), Scope: o.scopes})
	if err != nil {
		var fe policy.FileErrors
		if errors.As(err, &fe) {
			return fmt.Errorf("refusing to edit an invalid policy:\n%s", display.Escape(err.Error()))
		}
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(f.Policy()); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := atomicfile.WriteFile(f.Policy(), out, mode); err != nil {
		return err
	}
	scope := "every request of this folder"
	if len(o.scopes) > 0 {
		scope = strings.Join(o.scopes, ", ")
	}
	fmt.Fprintf(o.out, "%s now lists %s (%s) as an approver for %s.\n", f.Policy(), display.EscapeLine(o.name), display.EscapeLine(key), display.EscapeLine(scope))
	fmt.Fprintln(o.out, "It takes effect once the policy is accepted: `sandbox policy accept` (each teammate, on each machine).")
	return nil
}
