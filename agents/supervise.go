package agents

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
)

// SuperviseOptions is one `sandbox agents supervise NAME`.
type SuperviseOptions struct {
	State *userstate.State
	// Log is the agent's log (the supervisor's own standard output): the
	// setup's and a headless agent's output, the terminal's transcript.
	Log    io.Writer
	Logger *slog.Logger
	// Started, when set, is told (a line, then closed) once the record
	// leaves Starting: StartedFD of the spawn or resume that waits.
	Started io.WriteCloser
}

// MaxLog bounds an agent's log; past it the output is dropped, with a
// note (a runaway agent must not fill the disk of the per-user state).
const MaxLog = 64 << 20

// supervisor runs one agent's setup and then the agent, each in a jail
// whose folder is the agent's worktree, and keeps its record.
type supervisor struct {
	r    *Registry
	name string
	o    SuperviseOptions
	log  io.Writer // o.Log, capped at MaxLog
	// ci holds what the CI approver decided in the setup's and the
	// agent's runs (a CI agent).
	ci []launcher.CIEscalation
	// loaded is the worktree's policy as Supervise read it: the first
	// run's bus takes it instead of reading it again (then nil).
	loaded *policy.Engine
}

// Supervise runs agent name until it ends or ctx is cancelled (stop),
// holding lock all along. The record says how it ended.
func (r *Registry) Supervise(ctx context.Context, name string, lock *Lock, o SuperviseOptions) error {
	defer lock.Release()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &supervisor{r: r, name: name, o: o, log: &capped{w: o.Log, n: MaxLog}}
	rec, err := r.read(name)
	if err != nil {
		return err
	}
	// spawn and resume name this supervisor in the record they write
	// before the gate opens; the next write says the agent is running
	// (each write is an atomic, synced replace)
	if rec.PID != os.Getpid() {
		rec, err = r.Update(name, func(rec *Record) {
			rec.State, rec.PID, rec.Started, rec.Exit, rec.Error = Starting, os.Getpid(), time.Now().UTC(), nil, ""
			rec.Ended = time.Time{}
		})
		if err != nil {
			return err
		}
	}
	setup, serr := s.setupCommand(folder.Folder{Root: rec.Worktree}) // sets s.loaded
	fmt.Fprintf(s.log, "sandbox: agent %s: supervisor %d started %s\n", name, rec.PID, rec.Started.Format(time.RFC3339))
	res, err := s.run(ctx, rec, setup, serr)
	if rec.CI {
		rep := launcher.NewCIReport(rec.Worktree, rec.Argv, res.Code, rec.Started, s.ci)
		rep.WriteSummary(s.log)
		if werr := rep.WriteJSON(r.CIReportPath(name)); werr != nil && err == nil {
			err = werr
		}
	}
	return s.finish(ctx, res, err)
}

// StartAhead starts the jail's init of the agent's first run (the setup's,
// or the agent's) while spawn makes its worktree: the worktree gets MAIN's
// accepted policy, and so that run's limits. A run of another kind ends
// it unused; end ends it if no run took it (the spawn failed).
func (r *Registry) StartAhead(st *userstate.State) (end func()) {
	end = func() { launcher.KeepSpares(false) }
	eng, _, err := store.Load(r.Main, st, nil)
	if err != nil {
		return end
	}
	if lim, err := launcher.PolicyLimits(eng, launcher.Limits{}); err == nil {
		launcher.StartAhead(launcher.Options{Limits: lim})
	}
	return end
}

// run runs the policy's setup command (setupCommand's answer) and then
// the agent.
func (s *supervisor) run(ctx context.Context, rec Record, setup string, setupErr error) (launcher.Result, error) {
	if setupErr != nil {
		return launcher.Result{}, setupErr
	}
	if setup != "" {
		fmt.Fprintf(s.log, "sandbox: setup (agents.setup of the policy), in the agent's jail: %s\n", setup)
		res, err := s.jailRun(ctx, rec, []string{"/bin/sh", "-c", setup}, "", stdio{out: s.log}, nil)
		if err != nil {
			return res, fmt.Errorf("setup: %w", err)
		}
		if res.Code != 0 {
			return res, fmt.Errorf("setup %q exited %d", setup, res.Code)
		}
	}
	fmt.Fprintf(s.log, "sandbox: agent %s: %q\n", s.name, rec.Argv)
	if rec.Headless {
		return s.jailRun(ctx, rec, rec.Argv, profile(rec.Agent), stdio{out: s.log}, s.running)
	}
	return s.interactive(ctx, rec) // term_unix.go
}

// running records that the agent's command has started (its spawn waits
// for that, then looks at MAIN beside it, not beside the jail's start).
func (s *supervisor) running() {
	if _, err := s.r.Update(s.name, func(rec *Record) { rec.State = Running }); err != nil {
		fmt.Fprintf(s.log, "sandbox: agent %s: recording that it runs: %v\n", s.name, err)
	}
	s.tell()
}

// tell says to the spawn or resume waiting on Started that the record
// left Starting (once; exiting says it too).
func (s *supervisor) tell() {
	if s.o.Started != nil {
		s.o.Started.Write([]byte("started\n"))
		s.o.Started.Close()
		s.o.Started = nil
	}
}

// setupCommand reads agents.setup from the worktree's accepted policy
// (MAIN's, accepted for it at spawn), and keeps the policy for the first
// run's bus.
func (s *supervisor) setupCommand(wt folder.Folder) (string, error) {
	eng, warns, err := store.Load(wt, s.o.State, s.o.Logger)
	if err != nil {
		return "", fmt.Errorf("%s: the worktree's policy: %w", wt.Root, err)
	}
	for _, w := range warns {
		s.o.Logger.Warn("policy", "warning", w) // as the bus logs its loads'
	}
	s.loaded = eng
	return eng.Settings().Agents.Setup, nil
}

// finish records how the agent ended: stopped when ctx was cancelled,
// else done (exit 0) or failed.
func (s *supervisor) finish(ctx context.Context, res launcher.Result, runErr error) error {
	defer s.tell()
	rec, err := s.r.Update(s.name, func(rec *Record) {
		rec.Ended = time.Now().UTC()
		switch {
		case ctx.Err() != nil:
			rec.State = Stopped
		case runErr != nil:
			rec.State, rec.Error = Failed, runErr.Error()
		default:
			code := res.Code
			rec.Exit = &code
			rec.State = Done
			if code != 0 {
				rec.State = Failed
			}
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.log, "sandbox: agent %s: %s", s.name, rec.State)
	if rec.Exit != nil {
		fmt.Fprintf(s.log, " (exit %d)", *rec.Exit)
	}
	if rec.Error != "" {
		fmt.Fprintf(s.log, ": %s", rec.Error)
	}
	fmt.Fprintln(s.log)
	return nil
}

// stdio are the streams of one jailed run.
type stdio struct {
	in  io.Reader
	out io.Writer
}

// jailRun is `sandbox run` in-process: the worktree's bus (shims, proxy
// decisions, withdrawals) served while argv runs in a jail whose folder
// is the worktree, with the policy's limits.
func (s *supervisor) jailRun(ctx context.Context, rec Record, argv []string, agent string, io stdio, started func()) (launcher.Result, error) {
	wt := folder.Folder{Root: rec.Worktree}
	loaded := s.loaded
	s.loaded = nil
	bus, err := launcher.OpenBus(launcher.BusOptions{Folder: wt, State: s.o.State, Agent: agent, CI: rec.CI, Logger: s.o.Logger, Loaded: loaded})
	if err != nil {
		return launcher.Result{}, err
	}
	defer bus.Close()
	lo := launcher.Options{
		Folder: wt, Argv: argv, Agent: agent, StateDir: s.o.State.Dir,
		Stdin: io.in, Stdout: io.out, Stderr: io.out, Logger: s.o.Logger,
		ForwardSignals: io.in != nil, // the terminal's SIGWINCH (term_unix.go)
		Started:        started,
	}
	for _, name := range rec.AllowDegraded {
		l, err := launcher.ParseLayer(name)
		if err != nil {
			return launcher.Result{}, err
		}
		lo.AllowDegraded = append(lo.AllowDegraded, l)
	}
	bus.Apply(&lo)
	if lo.Limits, err = launcher.PolicyLimits(bus.Policy(), lo.Limits); err != nil {
		return launcher.Result{}, err
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		bus.Serve(sctx)
	}()
	defer func() {
		cancel()
		<-done
		if ci := bus.CI(); ci != nil {
			s.ci = append(s.ci, ci.Report()...)
		}
	}()
	return launcher.Run(ctx, lo)
}

// profile is launcher.Options.Agent for an agent: the registered agents
// get their config dirs; a command gets none of them.
func profile(agent string) string {
	if a, ok := adapter.Lookup(agent); ok && a.Launch != nil {
		return agent
	}
	return ""
}

// capped passes at most n bytes to w, then one note, then nothing.
type capped struct {
	w io.Writer

	mu   sync.Mutex // guards the fields below: the jail's output and our notes write concurrently
	n    int64
	full bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return len(p), nil
	}
	if int64(len(p)) > c.n {
		c.w.Write(p[:c.n])
		fmt.Fprintf(c.w, "\nsandbox: the log reached %d bytes; the rest of the output is dropped\n", MaxLog)
		c.full = true
		return len(p), nil
	}
	c.n -= int64(len(p))
	return c.w.Write(p)
}
