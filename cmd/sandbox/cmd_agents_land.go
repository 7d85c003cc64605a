package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	fleet "github.com/sandbox-dev/sandbox/agents"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type agentsLandOptions struct {
	dir                   dirFlag
	merge, squash, rebase bool
	into                  string
	push, pr              bool
	noWait                bool
	wait                  time.Duration
	name                  string
	out, er               io.Writer
}

func newAgentsLandCmd() *cobra.Command {
	opts := &agentsLandOptions{}
	cmd := &cobra.Command{
		Use:   "land NAME [--merge|--squash|--rebase] [--into BRANCH] [--push] [--pr] [--no-wait]",
		Short: "Ask a human to land an agent's branch; the broker does it outside the agent",
		Long: `land pins the head commit of the agent's branch (sandbox/NAME) as MAIN's
repository has it, checks that it applies (a conflict is reported with its
files, and nothing is asked), runs the policy's agents.test command in the
agent's worktree inside a jail, and asks a human (sandbox watch, serve,
approve) to land exactly that commit: the request shows the agent, the
branch and pinned commit, the target and its commit, the mode, the
diffstat, the test result and what will be done. Once approved, the broker
merges (default), squashes or rebases it into the target (default: MAIN's
checked-out branch) without touching MAIN's uncommitted changes, then
pushes with --push. --pr pushes the pinned commit and opens a pull request
with gh instead of landing locally. land exits with the landing's exit
code: 126 when denied, 124 when nobody decided within --wait.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			opts.out, opts.er = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runAgentsLand(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&opts.merge, "merge", false, "one merge commit of the pinned commit into the target (the default)")
	fl.BoolVar(&opts.squash, "squash", false, "one commit on the target with all of the branch's changes")
	fl.BoolVar(&opts.rebase, "rebase", false, "replay the branch's commits onto the target and fast-forward it")
	fl.StringVar(&opts.into, "into", "", "the target `BRANCH` (default: MAIN's checked-out branch)")
	fl.BoolVar(&opts.push, "push", false, "push the target to its upstream once landed")
	fl.BoolVar(&opts.pr, "pr", false, "push the pinned commit and open a pull request with gh instead of landing locally")
	fl.BoolVar(&opts.noWait, "no-wait", false, "submit the request, print its id and return")
	fl.DurationVar(&opts.wait, "wait", defaultRequestWait, "how long to wait for a decision")
	return cmd
}

func (o *agentsLandOptions) mode() (fleet.Mode, error) {
	var modes []fleet.Mode
	for m, on := range map[fleet.Mode]bool{fleet.Merge: o.merge, fleet.Squash: o.squash, fleet.Rebase: o.rebase} {
		if on {
			modes = append(modes, m)
		}
	}
	switch {
	case len(modes) > 1:
		return "", usageErrorf("give at most one of --merge, --squash and --rebase")
	case len(modes) == 1 && o.pr:
		return "", usageErrorf("--pr lands nothing locally: it takes no --merge, --squash or --rebase")
	case o.pr && o.push:
		return "", usageErrorf("--pr pushes the agent's branch itself: it takes no --push")
	case len(modes) == 1:
		return modes[0], nil
	}
	return fleet.Merge, nil
}

func runAgentsLand(ctx context.Context, opts *agentsLandOptions) error {
	mode, err := opts.mode()
	if err != nil {
		return err
	}
	if err := fleet.ValidName(opts.name); err != nil {
		return asUsage(err)
	}
	if live.Jailed() {
		return &exitError{code: exitNotHuman, msg: "land runs on the trusted side: run it outside the jail"}
	}
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	plan, err := prepareLand(ctx, f, opts, mode)
	if err != nil {
		var ce *fleet.ConflictError
		if errors.As(err, &ce) {
			fmt.Fprintf(opts.er, "sandbox: to resolve it, have the agent merge the target into its branch in its worktree and commit (sandbox agents attach %s, or a task), then land again\n", opts.name)
		}
		return landError(err)
	}
	fmt.Fprintln(opts.er, display.Escape(plan.Text()))
	req := plan.Request
	req.Session = cliSession()
	v, err := classify(f, req, stderrLogger(opts.er))
	if err != nil {
		return err
	}
	if v.deny {
		return &exitError{code: exitDenied, msg: "denied by the policy: " + strings.Join(v.reasons, "; ")}
	}
	req.PolicyReasons = v.reasons
	return submitLand(ctx, f, req, opts)
}

// prepareLand finds the agent in the registry and pins and checks the
// land (fleet.PrepareLand).
func prepareLand(ctx context.Context, f folder.Folder, opts *agentsLandOptions, mode fleet.Mode) (*fleet.Plan, error) {
	st, err := userstate.Open(true)
	if err != nil {
		return nil, err
	}
	reg, err := fleet.Open(f, st.Dir)
	if err != nil {
		return nil, err
	}
	rec, err := reg.Get(opts.name)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return nil, fmt.Errorf("the sandbox binary: %w", err)
	}
	return fleet.PrepareLand(ctx, fleet.LandOptions{
		Main: f, Record: rec, Mode: mode, Into: opts.into, Push: opts.push, PR: opts.pr,
		Exe: exe, Test: landTestCommand(f, st, stderrLogger(opts.er)), RunTest: fleet.TestRunner(st.Dir),
	})
}

// landError maps land's errors: what cannot be landed as asked is a usage
// error, a conflict names its files.
func landError(err error) error {
	var ce *fleet.ConflictError
	switch {
	case errors.As(err, &ce):
		msg := err.Error()
		if ce.Messages != "" {
			msg += "\n" + display.Escape(ce.Messages)
		}
		return &exitError{code: exitFailure, msg: msg}
	case fleet.IsUsage(err):
		return asUsage(err)
	}
	return err
}

// submitLand submits the land request, audited like every request, and
// waits for its outcome unless --no-wait.
func submitLand(ctx context.Context, f folder.Folder, req *queue.Request, opts *agentsLandOptions) error {
	if !opts.noWait {
		return submitAndFollow(ctx, f, req, &requestOptions{wait: opts.wait, out: opts.out, er: opts.er})
	}
	return submitAudited(ctx, f, req, opts.er, func(_ *queue.Queue, id string, _ bool) error {
		fmt.Fprintln(opts.out, id)
		fmt.Fprintf(opts.er, "sandbox: land request %s submitted (sandbox watch, or sandbox approve %s; sandbox result %s for its outcome)\n", id, id, id)
		return nil
	})
}

// landTestCommand is the accepted policy's agents.test command, "" when
// there is none (or no policy is accepted: the request then says that no
// test ran).
func landTestCommand(f folder.Folder, st *userstate.State, logger *slog.Logger) string {
	e, _, err := store.Load(f, st, logger)
	if err != nil || e == nil || e.Status() == policy.StatusNothingAccepted {
		return ""
	}
	return e.Settings().Agents.Test
}

type applyLandOptions struct {
	merge, squash, rebase bool
	l                     fleet.Landing
	out                   io.Writer
}

// newAgentsApplyLandCmd is the command an approved land runs (in the
// broker's grant jail, in MAIN): every commit id it acts on is in its
// argv, which the request's hash covers.
func newAgentsApplyLandCmd() *cobra.Command {
	opts := &applyLandOptions{}
	cmd := &cobra.Command{
		Use:    "apply-land --merge|--squash|--rebase --head SHA --into BRANCH --target SHA --ident 'NAME <EMAIL>' NAME",
		Short:  "Carry out an approved land in MAIN (run by the broker)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.l.Name, opts.out = args[0], cmd.OutOrStdout()
			return runApplyLand(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.merge, "merge", false, "merge")
	fl.BoolVar(&opts.squash, "squash", false, "squash")
	fl.BoolVar(&opts.rebase, "rebase", false, "rebase")
	fl.StringVar(&opts.l.Head, "head", "", "the pinned commit")
	fl.StringVar(&opts.l.Into, "into", "", "the target branch")
	fl.StringVar(&opts.l.Target, "target", "", "the target's commit when the land was requested")
	fl.StringVar(&opts.l.Ident, "ident", "", "the committer")
	return cmd
}

func runApplyLand(ctx context.Context, opts *applyLandOptions) error {
	lo := agentsLandOptions{merge: opts.merge, squash: opts.squash, rebase: opts.rebase}
	mode, err := lo.mode()
	if err != nil {
		return err
	}
	opts.l.Mode = mode
	if err := opts.l.Check(); err != nil {
		return asUsage(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	a, err := fleet.Apply(ctx, wd, opts.l)
	if err != nil {
		return landError(err)
	}
	fmt.Fprintln(opts.out, a.String())
	return nil
}
