package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type uninstallOptions struct {
	dirFlag
	purge   bool
	confirm confirmation
	out     io.Writer
}

func newUninstallCmd() *cobra.Command {
	opts := &uninstallOptions{confirm: confirmation{in: os.Stdin, isTTY: stdinIsTerminal}}
	cmd := &cobra.Command{
		Use:   "uninstall [DIR]",
		Short: "Remove exactly what init added to this folder; keep .sandbox/ unless --purge",
		Long: "Acts on DIR (or --dir), else on the current directory itself: never on a parent.\n" +
			"It prints the exact paths it will change and asks on a terminal; elsewhere it needs --yes.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.out = cmd.OutOrStdout()
			return runUninstall(cmd.Context(), opts, args)
		},
	}
	opts.bind(cmd)
	cmd.Flags().BoolVar(&opts.purge, "purge", false, "also delete .sandbox/ (policy, requests, results) and this folder's per-user state (audit log, accepted policy)")
	cmd.Flags().BoolVarP(&opts.confirm.yes, "yes", "y", false, "do it without asking (needed when stdin is not a terminal)")
	return cmd
}

// exactTarget is the folder a destructive command was pointed at or stands
// in: --dir, DIR, or the current directory, and never a parent of it.
func exactTarget(dirFlag string, args []string) (folder.Folder, error) {
	dir := dirFlag
	if dir == "" && len(args) > 0 {
		dir = args[0]
	}
	if dir == "" {
		dir = "."
	}
	return folder.At(dir)
}

func runUninstall(_ context.Context, opts *uninstallOptions, args []string) error {
	f, err := exactTarget(opts.dir, args)
	if err != nil {
		return err
	}
	m, err := install.LoadManifest(f)
	if err != nil {
		return err
	}
	stateDir := ""
	if st, err := userstate.Open(false); err == nil {
		stateDir = st.FolderPath(f.Root)
	}
	if !printUninstallPlan(opts.out, f, m, opts.purge, stateDir) {
		return nil
	}
	if err := opts.confirm.ask(opts.out, "uninstall", "Go ahead?"); err != nil {
		return err
	}
	if err := uninstallIntegrations(opts.out, f, m); err != nil {
		return err
	}
	if !opts.purge {
		fmt.Fprintf(opts.out, "kept %s (use --purge to delete it)\n", display.EscapeLine(f.Dir()))
		return nil
	}
	return purge(opts.out, f, stateDir)
}

// printUninstallPlan says exactly what uninstall will change, by absolute
// path, and reports whether there is anything to do.
func printUninstallPlan(out io.Writer, f folder.Folder, m install.Manifest, purge bool, stateDir string) bool {
	fmt.Fprintf(out, "Project folder: %s\n", display.EscapeLine(f.Root))
	for _, name := range m.Names() {
		fmt.Fprintf(out, "  unwire %s (remove only the entries init added)\n", name)
	}
	if purge {
		fmt.Fprintf(out, "  delete %s (policy, requests, results, checkpoints)\n", display.EscapeLine(f.Dir()))
		if stateDir != "" {
			fmt.Fprintf(out, "  delete %s (this folder's per-user state: audit log, accepted policy)\n", display.EscapeLine(stateDir))
		}
	}
	if len(m) == 0 && !purge {
		fmt.Fprintf(out, "Nothing is wired here; %s stays (use --purge to delete it).\n", display.EscapeLine(f.Dir()))
		return false
	}
	return true
}

func uninstallIntegrations(out io.Writer, f folder.Folder, m install.Manifest) error {
	env := install.Env{Folder: f}
	for _, name := range m.Names() {
		integ, err := adapter.Installer(name)
		if err != nil {
			return fmt.Errorf("uninstall %s: %w", name, err)
		}
		if err := integ.Uninstall(env, m[name]); err != nil {
			return fmt.Errorf("uninstall %s: %w", name, err)
		}
		delete(m, name)
		if err := m.Save(f); err != nil {
			return err
		}
		fmt.Fprintf(out, "unwired %s\n", name)
	}
	return nil
}

// purge deletes f's .sandbox/ and its per-user state. os.RemoveAll does
// not follow links inside the tree, and f.Dir() was checked to be a
// directory, not a link, by folder.At.
func purge(out io.Writer, f folder.Folder, stateDir string) error {
	if fi, err := os.Lstat(f.Dir()); err != nil || !fi.IsDir() {
		return fmt.Errorf("purge: %s is no longer a directory; nothing deleted", f.Dir())
	}
	if err := os.RemoveAll(f.Dir()); err != nil {
		return fmt.Errorf("purge: %w", err)
	}
	fmt.Fprintf(out, "deleted %s\n", display.EscapeLine(f.Dir()))
	if stateDir == "" || filepath.Base(filepath.Dir(stateDir)) != "folders" {
		return nil
	}
	if _, err := os.Lstat(stateDir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.RemoveAll(stateDir); err != nil {
		return fmt.Errorf("purge: %w", err)
	}
	fmt.Fprintf(out, "deleted %s\n", display.EscapeLine(stateDir))
	return nil
}
