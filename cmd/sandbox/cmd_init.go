package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type initOptions struct {
	dirFlag
	agents map[string]*bool
	nested bool
	out    io.Writer
}

func newInitCmd() *cobra.Command {
	opts := &initOptions{agents: map[string]*bool{}}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create .sandbox/ in a project and wire agents to it",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.out = cmd.OutOrStdout()
			return runInit(cmd.Context(), opts, args)
		},
	}
	opts.bind(cmd)
	for _, a := range adapter.Agents() { // init's agent flags, applied in this order
		opts.agents[a.Name] = cmd.Flags().Bool(a.Name, false, a.Wires)
	}
	cmd.Flags().BoolVar(&opts.nested, "nested", false, "create a separate project inside an enclosing one (it then governs this subfolder)")
	return cmd
}

func runInit(_ context.Context, opts *initOptions, args []string) error {
	f, err := initTarget(opts.dir, args)
	if err != nil {
		return err
	}
	if err := refuseNested(f, opts.nested); err != nil {
		return err
	}
	st, err := userstate.Open(true)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.out, "Project folder: %s\n", display.EscapeLine(f.Root))
	rerun := f.Exists()
	if err := createLayout(opts.out, f); err != nil {
		return err
	}
	if err := initPolicy(opts.out, f, st); err != nil {
		return err
	}
	if err := printJailProbe(opts.out, st); err != nil {
		return err
	}
	if err := installIntegrations(opts, f); err != nil {
		return err
	}
	printInitSummary(opts.out, f, st, rerun)
	return nil
}

// initTarget is the folder init works on: --dir, DIR, or the current
// directory (init does not search upward: it creates).
func initTarget(dirFlag string, args []string) (folder.Folder, error) {
	dir := dirFlag
	if dir == "" && len(args) > 0 {
		dir = args[0]
	}
	if dir == "" {
		dir = "."
	}
	return folder.New(dir)
}

func createLayout(out io.Writer, f folder.Folder) error {
	if fi, err := os.Lstat(f.Dir()); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", f.Dir())
	}
	created := !f.Exists()
	if err := f.Create(); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if created {
		fmt.Fprintf(out, "created %s\n", f.Dir())
	}
	changed, err := f.WriteGitIgnore()
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if changed && !created {
		fmt.Fprintf(out, "wrote %s (only the policy is committed)\n", f.GitIgnore())
	}
	return nil
}

// initPolicy writes the default policy when there is none and accepts it.
// An existing policy is never overwritten, and never accepted silently:
// it may have been written by anyone, so a human accepts it explicitly.
func initPolicy(out io.Writer, f folder.Folder, st *userstate.State) error {
	data := policy.DefaultYAML()
	file, err := os.OpenFile(f.Policy(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return reportExistingPolicy(out, f, st)
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	_, werr := file.Write(data)
	if cerr := file.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("init: %w", werr)
	}
	if err := store.Accept(f, st, data); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote and accepted the default policy %s\n", f.Policy())
	return nil
}

func reportExistingPolicy(out io.Writer, f folder.Folder, st *userstate.State) error {
	_, _, changed, err := store.Pending(f, st)
	if err != nil || changed {
		fmt.Fprintf(out, "%s is not accepted yet: review it with `sandbox policy diff`, then `sandbox policy accept`\n", f.Policy())
	}
	return nil
}

func installIntegrations(opts *initOptions, f folder.Folder) error {
	if !anyAgent(opts) {
		return nil
	}
	exe, err := wiringExe(opts.out)
	if err != nil {
		return err
	}
	m, err := install.LoadManifest(f)
	if err != nil {
		return err
	}
	env := install.Env{Folder: f, Exe: exe}
	changed := false
	for _, a := range adapter.Agents() {
		if !*opts.agents[a.Name] {
			continue
		}
		c, err := installOne(opts.out, env, m, a.Name)
		if err != nil {
			return err
		}
		changed = changed || c
	}
	if !changed {
		return nil
	}
	return m.Save(f)
}

// installOne installs one integration into m and reports whether anything
// changed. Each integration is saved to the manifest as soon as it is in
// place, so a later failure never leaves an unrecorded change behind.
func installOne(out io.Writer, env install.Env, m install.Manifest, name string) (bool, error) {
	integ, err := adapter.Installer(name)
	if err != nil {
		return false, err
	}
	change, err := integ.Install(env, m[name])
	if err != nil {
		return false, fmt.Errorf("init --%s: %w", name, err)
	}
	if string(change) == string(m[name]) {
		return false, nil
	}
	m[name] = change
	fmt.Fprintf(out, "wired %s\n", name)
	return true, m.Save(env.Folder)
}
