package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

	"github.com/sandbox-dev/sandbox/connector/hookd"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/shell"
	"github.com/sandbox-dev/sandbox/launcher"
	"github.com/spf13/cobra"
)

type runOptions struct {
	dir           dirFlag
	memory        string
	pids          int64
	cpus          float64
	allowDegraded []string
	ci            bool
	agent         string
	writable      []string
	allowHosts    []string
	report        string // CI mode: write the summary as JSON here
	failOnDeny    bool   // CI mode: exit non-zero when an escalation was denied
	quiet         bool   // no notices of our own: the command's output alone
	sharedTmp     bool   // the host's /tmp and /var/tmp, their sockets hidden (connector mode)
	cwdFD         int    // > 0: report the command's final directory there
	verbose       bool   // say what the jail gets: keys passed, variables dropped, paths hidden
	argv          []string
	// served is set when the hook server runs the command for a client
	// (cmd_hookd.go) instead of for this process's own command line.
	served *servedRun
	// memo keeps the folder's engine and the shims between runs (the hook
	// server's)
	memo   *launcher.BusMemo
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func newRunCmd() *cobra.Command {
	opts := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] -- CMD [ARGS...]",
		Short: "Run an agent (or any command) inside the jail: cgroup, Landlock, seccomp, namespaces, egress proxy",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.argv = args
			opts.stdin, opts.stdout, opts.stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().SetInterspersed(false)
	opts.dir.bind(cmd)
	f := cmd.Flags()
	f.StringVar(&opts.memory, "memory", "", "memory limit (bytes, or with K, M, G suffix)")
	f.Int64Var(&opts.pids, "pids", 0, "limit on processes and threads in the jail")
	f.Float64Var(&opts.cpus, "cpu", 0, "CPU quota in cores (1.5 = one and a half)")
	f.StringSliceVar(&opts.allowDegraded, "allow-degraded", nil,
		"run even though these `LAYERS` are degraded or missing here (comma-separated names, as sandbox doctor prints them)")
	f.BoolVar(&opts.ci, "ci", false, "CI mode: no human; escalations follow the policy's ci: section")
	f.StringVar(&opts.agent, "agent", "", "agent profile for writable config dirs (default: the command's name)")
	f.StringSliceVar(&opts.writable, "write", nil, "extra writable path (repeatable)")
	f.StringSliceVar(&opts.allowHosts, "allow-host", nil, "let the proxy pass HOST or HOST:PORT (repeatable)")
	f.StringVar(&opts.report, "report", "", "CI mode: write every escalation and its outcome to FILE as JSON")
	f.BoolVar(&opts.failOnDeny, "fail-on-deny", false, "CI mode: exit non-zero when any escalation was denied")
	f.IntVar(&opts.cwdFD, "cwd-fd", 0, "when the command ends, write the directory its shell ended in to descriptor N (its stdin is then empty; connector mode keeps the agent's `cd` so)")
	f.BoolVarP(&opts.quiet, "quiet", "q", false, "print nothing of sandbox's own unless it fails: the command's output and exit status alone (connector mode runs allowed commands so)")
	f.BoolVar(&opts.sharedTmp, "shared-tmp", false, "keep the host's /tmp and /var/tmp (their sockets as found at the start hidden) instead of private ones: connector mode runs allowed commands so, one jail each between the agent's own tool calls")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "say what the jail gets: the agent's key passed in, the variables dropped, the paths hidden or read-only")
	return cmd
}

func runRun(ctx context.Context, opts *runOptions) error {
	var ended atomic.Bool // lo.Ended was called
	lo, err := opts.launcherOptions()
	if err != nil {
		return err
	}
	switch {
	case opts.served != nil:
		cr, err := newCwdReport(opts.served.cwd)
		if err != nil {
			return err
		}
		lo.Stdin = cr.jail
		defer cr.finish()
		if answer := opts.served.answer; answer != nil {
			// the client learns the end as soon as nothing of the jail
			// runs any more; the teardown goes on after its answer
			lo.Ended = func(st launcher.ExitStatus) {
				ended.Store(true)
				limitsHit(opts.stderr, st.OOMKilled, st.PidsLimit)
				cr.finish()
				answer(st.Code)
			}
		}
	case opts.cwdFD != 0:
		cr, err := openCwdReport(opts.cwdFD)
		if err != nil {
			return err
		}
		lo.Stdin = cr.jail
		defer cr.finish() // after the jail has ended
	}
	rb, err := startRunBus(ctx, opts, &lo) // shims, proxy decisions, CI approver: run_bus.go
	if err != nil {
		return err
	}
	if lo.Limits, err = launcher.PolicyLimits(rb.bus.Policy(), lo.Limits); err != nil {
		rb.finish(0)
		return err
	}
	// Signals go to the jail (the agent decides what Ctrl-C means), so the
	// root context's cancellation on SIGINT must not kill it.
	jctx := context.WithoutCancel(ctx)
	if opts.served != nil {
		jctx = ctx // the hook server's run ends with its client
	}
	res, err := launcher.Run(jctx, lo)
	denied, rerr := rb.finish(res.Code)
	if rerr != nil {
		fmt.Fprintln(opts.stderr, "sandbox:", rerr)
	}
	var coded interface{ ExitCode() int } // the jail init's 125/126/127
	switch {
	case errors.As(err, &coded) && coded.ExitCode() > 0:
		return &exitError{code: coded.ExitCode(), msg: err.Error()}
	case err != nil:
		return err
	case !ended.Load():
		limitsHit(opts.stderr, res.OOMKilled, res.PidsLimit)
	}
	if res.Code != 0 {
		return exitWith(res.Code)
	}
	if denied && opts.failOnDeny {
		return &exitError{code: exitCIDenied, msg: "--fail-on-deny: an escalation was denied (see the CI summary)"}
	}
	return nil
}

// limitsHit says when the jail hit its memory or process limit.
func limitsHit(w io.Writer, oom, pids bool) {
	switch {
	case oom:
		fmt.Fprintln(w, "sandbox: the jail hit its memory limit (OOM kill)")
	case pids:
		fmt.Fprintln(w, "sandbox: the jail hit its process limit")
	}
}

func (o *runOptions) launcherOptions() (launcher.Options, error) {
	f, err := o.dir.resolve(nil)
	if err != nil {
		return launcher.Options{}, err
	}
	lo := launcher.Options{
		Folder: f, Argv: o.argv, Direct: o.direct(), Agent: o.agent, Writable: o.writable, CI: o.ci,
		ShimDir: f.Shims(), ForwardSignals: true, Quiet: o.quiet, SharedTmp: o.sharedTmp,
		Stdin: o.stdin, Stdout: o.stdout, Stderr: o.stderr,
	}
	lo.Dir = projectCwd(f)
	if s := o.served; s != nil {
		lo.Dir, lo.Env, lo.ForwardSignals = s.dir(f), s.env, false
	}
	if o.verbose {
		lo.Logger = slog.New(slog.NewTextHandler(o.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	if lo.Limits.MemoryBytes, err = parseSize(o.memory); err != nil {
		return lo, err
	}
	lo.Limits.Pids, lo.Limits.CPUs = o.pids, o.cpus
	if o.pids < 0 || o.pids > 0 && o.pids < policy.MinPIDs {
		return lo, usageErrorf("invalid argument --pids %d: want 0 (no limit) or at least %d (the jail's init needs a few threads)", o.pids, policy.MinPIDs)
	}
	for _, name := range o.allowDegraded {
		l, err := launcher.ParseLayer(name)
		if err != nil {
			return lo, usageErrorf("invalid argument --allow-degraded: %w", err)
		}
		lo.AllowDegraded = append(lo.AllowDegraded, l)
	}
	if len(o.allowHosts) > 0 {
		if lo.Decider, err = launcher.NewAllowList(o.allowHosts...); err != nil {
			return lo, usageErrorf("invalid argument --allow-host: %w", err)
		}
	}
	return lo, nil
}

// direct is the one program that the connector's jailed form of a
// command (bash -c 'CwdTrap SCRIPT', served or with --cwd-fd) would only
// start: a simple command (shell.SimpleCommand). The jail then starts it
// without the shell, unless what only the jail sees says otherwise
// (jailspec.Spec.Direct); nothing is reported back, since a program
// cannot change its shell's directory.
func (o *runOptions) direct() []string {
	if o.served == nil && o.cwdFD == 0 || len(o.argv) != 3 || o.argv[0] != "bash" || o.argv[1] != "-c" {
		return nil
	}
	script, ok := strings.CutPrefix(o.argv[2], hookd.CwdTrap)
	if !ok {
		return nil
	}
	argv, _ := shell.SimpleCommand(script)
	return argv
}

// parseSize reads the --memory flag (policy.ParseSize).
func parseSize(s string) (int64, error) {
	n, err := policy.ParseSize(s)
	if err != nil {
		return 0, usageErrorf("invalid argument --memory %q: want a size such as 512M or 2G", s)
	}
	return n, nil
}
