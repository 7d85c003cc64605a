package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type uninstallOptions struct {
	dirFlag
	purge bool
	out   io.Writer
}

func newUninstallCmd() *cobra.Command {
	opts := &uninstallOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall [DIR]",
		Short: "Remove exactly what init added; keep .sandbox/ unless --purge",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.out = cmd.OutOrStdout()
			return runUninstall(cmd.Context(), opts, args)
		},
	}
	opts.bind(cmd)
	cmd.Flags().BoolVar(&opts.purge, "purge", false, "also delete .sandbox/ (requests, results, audit log) and this folder's per-user state")
	return cmd
}

func runUninstall(_ context.Context, opts *uninstallOptions, args []string) error {
	f, err := opts.resolve(args)
	if err != nil {
		return err
	}
	if err := uninstallIntegrations(opts.out, f); err != nil {
		return err
	}
	if !opts.purge {
		fmt.Fprintf(opts.out, "kept %s (use --purge to delete it)\n", f.Dir())
		return nil
	}
	return purge(opts.out, f)
}

func uninstallIntegrations(out io.Writer, f folder.Folder) error {
	m, err := install.LoadManifest(f)
	if err != nil {
		return err
	}
	exe, _ := os.Executable()
	env := install.Env{Folder: f, Exe: exe}
	for _, name := range m.Names() {
		integ, err := install.Lookup(name)
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

func purge(out io.Writer, f folder.Folder) error {
	if err := os.RemoveAll(f.Dir()); err != nil {
		return fmt.Errorf("purge: %w", err)
	}
	fmt.Fprintf(out, "deleted %s\n", f.Dir())
	st, err := userstate.Open(false)
	if err != nil {
		return nil // no per-user state: nothing more to purge
	}
	dir, err := st.FolderDir(f.Root)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("purge: %w", err)
	}
	return nil
}
