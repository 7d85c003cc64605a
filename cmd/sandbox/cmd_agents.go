package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	fleet "github.com/sandbox-dev/sandbox/agents"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type agentsOptions struct {
	dir       dirFlag
	agent     string
	base      string
	task      string
	taskFile  string
	headless  bool
	wait      bool
	degraded  []string
	jsonOut   bool
	follow    bool
	raw       bool
	stat      bool
	keep      bool
	ci        bool   // run: no human (the only mode so far)
	tasks     string // run: tasks.yaml
	report    string // run: the JSON report
	parallel  int    // run: agents at once
	failDeny  bool   // run: exit non-zero when an escalation was denied
	dash      int    // cobra's ArgsLenAtDash: where -- stood among the arguments, or -1
	out, errw io.Writer
}

func newAgentsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "Run many agents at once, each in its own git worktree and jail, with one inbox (docs/AGENTS-FLEET.md)",
		Args:  cobra.NoArgs,
	}
	sub := func(use, short string, args cobra.PositionalArgs, run func(context.Context, *agentsOptions, []string) error) (*cobra.Command, *agentsOptions) {
		opts := &agentsOptions{}
		c := &cobra.Command{
			Use: use, Short: short, Args: args,
			RunE: func(c *cobra.Command, a []string) error {
				opts.out, opts.errw, opts.dash = c.OutOrStdout(), c.ErrOrStderr(), c.ArgsLenAtDash()
				return run(c.Context(), opts, a)
			},
		}
		opts.dir.bind(c)
		return c, opts
	}
	spawn, so := sub("spawn NAME [flags] [-- CMD ARGS...]", "Start an agent in a new worktree (branch sandbox/NAME) and its own jail",
		cobra.MinimumNArgs(1), runAgentsSpawn)
	spawn.Flags().StringVar(&so.agent, "agent", "", "the agent: claude, codex or gemini (default claude; with a command after --, the profile it runs under)")
	spawn.Flags().StringVar(&so.base, "base", "HEAD", "the commit (or branch, tag) the worktree starts from")
	spawn.Flags().StringVar(&so.task, "task", "", "the task (a headless agent's prompt; an interactive one's first message)")
	spawn.Flags().StringVar(&so.taskFile, "task-file", "", "read the task from `FILE`")
	spawn.Flags().BoolVar(&so.headless, "headless", false, "run the task to completion without a terminal (claude -p, codex exec, gemini -p)")
	spawn.Flags().BoolVar(&so.wait, "wait", false, "wait until the agent ends, and exit with its exit code")
	spawn.Flags().StringSliceVar(&so.degraded, "allow-degraded", nil, "run even though these jail `LAYERS` are degraded or missing (as sandbox run)")
	sup, _ := sub("supervise NAME", "Supervise one agent (started by spawn and resume)", cobra.ExactArgs(1), runAgentsSupervise)
	sup.Hidden = true
	attach, _ := sub("attach NAME", "Connect this terminal to an interactive agent ("+fleet.DetachHelp+")", cobra.ExactArgs(1), runAgentsAttach)
	logs, lo := sub("logs NAME", "Print an agent's output (escaped; --raw for the bytes)", cobra.ExactArgs(1), runAgentsLogs)
	logs.Flags().BoolVarP(&lo.follow, "follow", "f", false, "keep printing until the agent ends")
	logs.Flags().BoolVar(&lo.raw, "raw", false, "the output as the agent wrote it, escape sequences included")
	list, li := sub("list", "List the agents: state, branch, base, diffstat, pending requests, CPU, memory, uptime", cobra.NoArgs, runAgentsList)
	list.Flags().BoolVar(&li.jsonOut, "json", false, "print JSON")
	diff, do := sub("diff NAME", "Show what an agent changed against its base", cobra.ExactArgs(1), runAgentsDiff)
	diff.Flags().BoolVar(&do.stat, "stat", false, "a diffstat only")
	stop, _ := sub("stop NAME", "Stop an agent (its jail goes with it); resume brings it back", cobra.ExactArgs(1), runAgentsStop)
	rm, ro := sub("rm NAME", "Remove a stopped agent: its worktree and its branch", cobra.ExactArgs(1), runAgentsRm)
	rm.Flags().BoolVar(&ro.keep, "keep-branch", false, "keep the branch sandbox/NAME")
	resume, _ := sub("resume NAME", "Restart a stopped agent in its worktree (claude --continue where the agent can)", cobra.ExactArgs(1), runAgentsResume)
	run, rn := sub("run --ci --tasks FILE --report FILE", "Run headless agents in parallel, each in its own worktree and jail; escalations follow the policy's ci: section",
		cobra.NoArgs, runAgentsRun)
	run.Flags().BoolVar(&rn.ci, "ci", false, "no human: the policy's ci: section decides every escalation (required)")
	run.Flags().StringVar(&rn.tasks, "tasks", "", "the tasks, as YAML (`tasks: [{name, agent, task, base, command}]`)")
	run.Flags().StringVar(&rn.report, "report", "", "write each agent's outcome, escalations and diffstat to `FILE` as JSON")
	run.Flags().IntVar(&rn.parallel, "parallel", 2, "how many agents run at once")
	run.Flags().BoolVar(&rn.failDeny, "fail-on-deny", false, "exit non-zero when any escalation was denied")
	cmd.AddCommand(spawn, sup, attach, logs, list, diff, stop, rm, resume, run)
	cmd.AddCommand(newAgentsLandCmd(), newAgentsApplyLandCmd()) // cmd_agents_land.go
	return cmd
}

// agentsRegistry opens the registry of the repository the command stands
// in (MAIN, also from inside one of its agents' worktrees).
func agentsRegistry(opts *agentsOptions) (*fleet.Registry, *userstate.State, error) {
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return nil, nil, err
	}
	st, err := userstate.Open(true)
	if err != nil {
		return nil, nil, fmt.Errorf("per-user state: %w", err)
	}
	r, err := fleet.Open(fleet.MainOf(f), st.Dir)
	return r, st, err
}

// agentName checks NAME: a bad one is a usage error.
func agentName(name string) error {
	if err := fleet.ValidName(name); err != nil {
		return usageErrorf("%w", err)
	}
	return nil
}

func (o *agentsOptions) spawnOptions(args []string) (fleet.SpawnOptions, error) {
	so := fleet.SpawnOptions{Name: args[0], Agent: o.agent, BaseRef: o.base, Task: o.task,
		Headless: o.headless, AllowDegraded: o.degraded, Out: o.out}
	if dash := o.dash; dash > 1 || dash < 0 && len(args) > 1 {
		return so, usageErrorf("spawn takes one NAME; the command goes after --")
	} else if dash == 1 {
		so.Argv = args[1:]
		if len(so.Argv) == 0 {
			return so, usageErrorf("nothing after --")
		}
	}
	if o.task != "" && o.taskFile != "" {
		return so, usageErrorf("--task and --task-file: give one")
	}
	if o.taskFile != "" {
		b, err := readSmallFile(o.taskFile, 1<<20)
		if err != nil {
			return so, usageErrorf("--task-file: %w", err)
		}
		so.Task = string(b)
	}
	if len(so.Argv) > 0 && so.Task != "" {
		return so, usageErrorf("--task is for a known agent; a command after -- is run as given")
	}
	return so, nil
}

func runAgentsSpawn(ctx context.Context, opts *agentsOptions, args []string) error {
	if err := agentName(args[0]); err != nil {
		return err
	}
	if err := approver.RefuseNonHuman(); err != nil {
		return err // spawn accepts MAIN's policy for the new worktree
	}
	so, err := opts.spawnOptions(args)
	if err != nil {
		return err
	}
	r, st, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	so.State = st
	sp, err := r.Spawn(ctx, so)
	if errors.Is(err, fleet.ErrUnknownAgent) || errors.Is(err, fleet.ErrNoTask) {
		return usageErrorf("%w", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.out, "sandbox: times: worktree %s, agent start %s\n", sp.Tree.Round(time.Millisecond), sp.Start.Round(time.Millisecond))
	return agentStarted(ctx, r, opts, sp.Record)
}

// agentStarted reports how a start went (spawn, resume); with --wait it
// waits for the end.
func agentStarted(ctx context.Context, r *fleet.Registry, opts *agentsOptions, rec fleet.Record) error {
	if rec.State == fleet.Failed && rec.Exit == nil {
		return fmt.Errorf("agent %s failed to start: %s (`sandbox agents logs %s`)", rec.Name, display.EscapeLine(rec.Error), rec.Name)
	}
	fmt.Fprintf(opts.out, "sandbox: agent %s %s (supervisor pid %d); `sandbox agents logs %s -f`", rec.Name, rec.State, rec.PID, rec.Name)
	if !rec.Headless {
		fmt.Fprintf(opts.out, ", `sandbox agents attach %s` (%s)", rec.Name, fleet.DetachHelp)
	}
	fmt.Fprintln(opts.out)
	if !opts.wait {
		return nil
	}
	rec, err := r.Wait(ctx, rec.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.out, "sandbox: agent %s %s\n", rec.Name, rec.State)
	if rec.Exit != nil && *rec.Exit != 0 {
		return exitWith(*rec.Exit)
	}
	if rec.State != fleet.Done {
		return exitWith(exitFailure)
	}
	return nil
}

func runAgentsSupervise(ctx context.Context, opts *agentsOptions, args []string) error {
	r, st, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	lock, err := r.InheritedLock(args[0])
	if err != nil {
		return err
	}
	so := fleet.SuperviseOptions{State: st, Log: os.Stdout}
	if f := fleet.InheritedStarted(); f != nil { // before any child starts
		so.Started = f
	}
	// started ahead by spawn: what does not need the agent's record or
	// worktree is done while spawn makes them (the jail's init started),
	// then it waits for the word
	defer r.StartAhead(st)()
	if err := fleet.AwaitGate(); errors.Is(err, fleet.ErrSpawnAborted) {
		return nil // the spawn failed and said why; nothing was recorded
	} else if err != nil {
		return err
	}
	return r.Supervise(ctx, args[0], lock, so)
}

func runAgentsAttach(ctx context.Context, opts *agentsOptions, args []string) error {
	r, _, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.errw, "sandbox: attached to %s; %s\r\n", args[0], fleet.DetachHelp)
	err = r.Attach(ctx, args[0], os.Stdin, opts.out)
	if err == nil {
		fmt.Fprintf(opts.errw, "\r\nsandbox: detached; %s keeps running\n", args[0])
	}
	return err
}

func runAgentsLogs(ctx context.Context, opts *agentsOptions, args []string) error {
	r, _, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	return r.Logs(ctx, args[0], opts.out, opts.follow, opts.raw)
}

func runAgentsList(ctx context.Context, opts *agentsOptions, _ []string) error {
	r, st, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	recs, lerr := r.List()
	out := make([]fleet.Status, 0, len(recs))
	for _, rec := range recs {
		out = append(out, r.Observe(ctx, rec, st))
	}
	if opts.jsonOut {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		return lerr
	}
	printAgents(opts.out, out)
	return lerr
}

func printAgents(w io.Writer, list []fleet.Status) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no agents (sandbox agents spawn NAME)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tAGENT\tSTATE\tBRANCH\tBASE\tPENDING\tDIFF\tCPU\tMEM\tUPTIME\tPID")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.12s\t%d\t%d files +%d -%d\t%s\t%s\t%s\t%s\n",
			s.Name, display.EscapeLine(s.Agent), s.State, s.Branch, s.Base, s.Pending,
			s.Diffstat.Files, s.Diffstat.Insertions, s.Diffstat.Deletions,
			orDash(when(s.CPUSeconds > 0, fmt.Sprintf("%.1fs", s.CPUSeconds))),
			orDash(when(s.MemoryBytes > 0, fmt.Sprintf("%.1fMiB", float64(s.MemoryBytes)/(1<<20)))),
			orDash(when(s.UptimeSeconds > 0, (time.Duration(s.UptimeSeconds)*time.Second).String())),
			orDash(when(!s.State.Final() && s.PID > 0, fmt.Sprint(s.PID))))
	}
	tw.Flush()
}

// when is s when ok, else "" (which orDash shows as "-").
func when(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

func runAgentsDiff(ctx context.Context, opts *agentsOptions, args []string) error {
	r, _, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	return r.Diff(ctx, args[0], escapedWriter{opts.out}, opts.stat)
}

// escapedWriter shows an agent's diff with its escape sequences visible.
type escapedWriter struct{ w io.Writer }

func (e escapedWriter) Write(p []byte) (int, error) {
	_, err := io.WriteString(e.w, display.Escape(string(p)))
	return len(p), err
}

func runAgentsStop(ctx context.Context, opts *agentsOptions, args []string) error {
	r, _, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	was, err := r.Stop(ctx, args[0])
	if err != nil {
		return err
	}
	if was {
		fmt.Fprintf(opts.out, "sandbox: stopped %s (`sandbox agents resume %s` restarts it)\n", args[0], args[0])
	} else {
		fmt.Fprintf(opts.out, "sandbox: %s was not running\n", args[0])
	}
	return nil
}

func runAgentsRm(ctx context.Context, opts *agentsOptions, args []string) error {
	if err := agentName(args[0]); err != nil {
		return err
	}
	r, _, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	return r.Rm(ctx, args[0], fleet.RemoveOptions{KeepBranch: opts.keep, Out: opts.out})
}

func runAgentsResume(ctx context.Context, opts *agentsOptions, args []string) error {
	if err := agentName(args[0]); err != nil {
		return err
	}
	r, _, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	rec, err := r.Resume(ctx, args[0], "")
	if err != nil {
		return err
	}
	return agentStarted(ctx, r, opts, rec)
}

// readSmallFile reads at most limit bytes of path.
func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, err
}

func runAgentsRun(ctx context.Context, opts *agentsOptions, _ []string) error {
	if !opts.ci || opts.tasks == "" {
		return usageErrorf("agents run needs --ci and --tasks (no other mode yet)")
	}
	if opts.parallel < 1 {
		return usageErrorf("invalid argument --parallel %d: at least 1", opts.parallel)
	}
	data, err := readSmallFile(opts.tasks, 1<<20)
	if err != nil {
		return usageErrorf("--tasks: %w", err)
	}
	tasks, err := fleet.ParseTasks(data)
	if err != nil {
		return usageErrorf("--tasks %s: %w", opts.tasks, err)
	}
	if err := approver.RefuseNonHuman(); err != nil {
		return err // as spawn: each worktree gets MAIN's accepted policy
	}
	r, st, err := agentsRegistry(opts)
	if err != nil {
		return err
	}
	rep := r.FanOut(ctx, fleet.FanOutOptions{Tasks: tasks, Parallel: opts.parallel, State: st, Out: opts.errw})
	for _, a := range rep.Agents {
		fmt.Fprintf(opts.out, "%s\t%s\t%d approved, %d denied\t%d files +%d -%d", a.Name, a.Outcome, a.Approved,
			len(a.Escalations)-a.Approved, a.Diffstat.Files, a.Diffstat.Insertions, a.Diffstat.Deletions)
		if a.Error != "" {
			fmt.Fprintf(opts.out, "\t%s", display.EscapeLine(a.Error))
		}
		fmt.Fprintln(opts.out)
	}
	if opts.report != "" {
		if err := rep.WriteJSON(opts.report); err != nil {
			return err
		}
	}
	switch {
	case rep.Failed > 0:
		return &exitError{code: exitFailure, msg: fmt.Sprintf("%d of %d agents failed", rep.Failed, len(rep.Agents))}
	case opts.failDeny && rep.AnyDenied():
		return &exitError{code: exitCIDenied, msg: "--fail-on-deny: an escalation was denied"}
	}
	return nil
}
