package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
)

// CommandAgent is Record.Agent for a command given after `--`.
const CommandAgent = "command"

// DefaultAgent is the agent spawn starts when given neither --agent nor a
// command.
const DefaultAgent = "claude"

// SpawnOptions is one `sandbox agents spawn`.
type SpawnOptions struct {
	Name     string
	Agent    string   // a registered agent with a Launch; "" for DefaultAgent or a command
	Argv     []string // the command after `--`, run as the agent
	BaseRef  string   // default HEAD
	Task     string
	Headless bool
	// AllowDegraded is passed to the agent's runs (launcher layer names).
	AllowDegraded []string
	// CI runs the agent without a human (Record.CI).
	CI    bool
	State *userstate.State
	// Exe is the sandbox binary that runs the supervisor (default: this
	// executable).
	Exe string
	Out io.Writer // what spawn says it did
}

// Spawned is what Spawn reports.
type Spawned struct {
	Record
	Copied Copied
	Dirty  bool          // MAIN had uncommitted changes the agent does not get
	Tree   time.Duration // creating the worktree (git worktree add, copies, bus)
	Start  time.Duration // from the supervisor's start to the agent's start
	// made: git worktree add made the worktree and its branch, which a
	// failing spawn then takes back (never a branch it did not make).
	made bool
}

// argvFor is the agent and command line a spawn runs.
func argvFor(o *SpawnOptions, resume bool) (agent string, argv []string, err error) {
	if len(o.Argv) > 0 {
		if o.Agent == "" {
			return CommandAgent, o.Argv, nil
		}
		return o.Agent, o.Argv, nil
	}
	agent = o.Agent
	if agent == "" {
		agent = DefaultAgent
	}
	a, ok := adapter.Lookup(agent)
	if !ok || a.Launch == nil {
		var names []string
		for _, a := range adapter.Launchable() {
			names = append(names, a.Name)
		}
		return "", nil, fmt.Errorf("--agent %q: %w (%s; or give a command after --)", agent, ErrUnknownAgent, strings.Join(names, ", "))
	}
	if o.Headless && strings.TrimSpace(o.Task) == "" {
		return "", nil, fmt.Errorf("--headless needs --task or --task-file: %w", ErrNoTask)
	}
	return agent, a.Launch.Argv(o.Task, o.Headless, resume), nil
}

// Spawn creates agent o.Name's worktree from its base, copies what
// .worktreeinclude lists, gives the worktree MAIN's accepted policy, and
// starts its supervisor; it returns once the agent started or failed to.
func (r *Registry) Spawn(ctx context.Context, o SpawnOptions) (sp Spawned, err error) {
	if err := ValidName(o.Name); err != nil {
		return sp, err
	}
	agent, argv, err := argvFor(&o, false)
	if err != nil {
		return sp, err
	}
	baseRef := o.BaseRef
	if baseRef == "" {
		baseRef = "HEAD"
	}
	if err := checkBase(r.Main.Root, baseRef); err != nil {
		return sp, err
	}
	policy, err := store.Accepted(r.Main, o.State)
	if err != nil {
		return sp, fmt.Errorf("%s: %w (run `sandbox policy accept` there first: each agent's worktree gets the policy you accepted)", r.Main.Root, err)
	}
	lock, err := r.Lock(o.Name)
	if err != nil {
		return sp, err
	}
	defer lock.Release()
	if err := r.checkFree(ctx, o.Name); err != nil {
		return sp, err
	}
	// the supervisor starts now and waits at its gate: its process and
	// runtime start overlap the git work below
	sup, err := r.launchSupervisor(o.Name, lock, o.Exe)
	if err != nil {
		return sp, err
	}
	started := false
	defer func() {
		if !started {
			sup.abort()
		}
	}()
	sp.Record = Record{
		Name: o.Name, Agent: agent, Argv: argv, Headless: o.Headless, Task: o.Task,
		Branch: "sandbox/" + o.Name, BaseRef: baseRef, Worktree: r.Worktree(o.Name),
		State: Starting, Created: time.Now().UTC(), AllowDegraded: o.AllowDegraded, CI: o.CI,
		PID: sup.pid, Started: time.Now().UTC(),
	}
	t0 := time.Now()
	err = r.makeTree(ctx, &sp, policy, o.State, o.Exe)
	if err != nil {
		if sp.made {
			r.unmakeTree(sp.Record)
		}
		return sp, err
	}
	sp.Tree = time.Since(t0)
	say(o.Out, "agent %s: base %s = %s", o.Name, baseRef, sp.Base)
	say(o.Out, "worktree %s on branch %s", sp.Worktree, sp.Branch)
	for _, f := range sp.Copied.Files {
		say(o.Out, "copied %s (%s)", f, IncludeFile)
	}
	for _, s := range sp.Copied.Skipped {
		say(o.Out, "not copied: %s", s)
	}
	t1 := time.Now()
	started = true
	sp.Record, err = sup.proceed(ctx)
	sp.Start = time.Since(t1)
	// what the agent does not get from MAIN: told once it runs (git
	// status reads the whole tree; beside the checkout it took the cores
	// the checkout needed)
	var derr error
	if sp.Dirty, derr = dirty(ctx, r.Main.Root); derr != nil {
		say(o.Out, "could not tell whether %s has uncommitted changes: %v", r.Main.Root, derr)
	} else if sp.Dirty {
		say(o.Out, "%s has uncommitted changes: the agent starts from %s without them", r.Main.Root, short(sp.Base))
	}
	return sp, err
}

// checkFree refuses a NAME whose record or worktree exists (a branch of
// the name makes git worktree add fail: makeTree says so).
func (r *Registry) checkFree(ctx context.Context, name string) error {
	if rec, err := r.read(name); err == nil {
		return fmt.Errorf("%s (%s): %w: `sandbox agents resume %s`, or `sandbox agents rm %s` first", name, r.live(rec).State, ErrExists, name, name)
	}
	if _, err := os.Lstat(r.Worktree(name)); err == nil {
		return fmt.Errorf("%s: %w: %s is there (remove it, or pick another name)", name, ErrExists, r.Worktree(name))
	}
	return nil
}

// makeTree adds the worktree from sp.BaseRef, sets sp.Base to the commit
// it holds and records the agent, copies the included files and gives
// the worktree its own bus with MAIN's accepted policy, accepted for it.
// What needs no checked-out file runs beside the checkout: the base's
// resolution and the record, the acceptance (per-user state, keyed by
// the worktree's path); each synced write after the checkout would wait
// for the checkout's journal commit.
func (r *Registry) makeTree(ctx context.Context, sp *Spawned, policy []byte, st *userstate.State, exe string) (err error) {
	if err := os.MkdirAll(r.Main.Worktrees(), 0o755); err != nil {
		return err
	}
	wt := folder.Folder{Root: sp.Worktree}
	base, err := baseOf(ctx, r.Main.Root, sp.BaseRef)
	if err != nil {
		return err
	}
	var putErr, acceptErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		rec := sp.Record
		rec.Base = base
		putErr = r.Put(rec)
	})
	wg.Go(func() { acceptErr = store.AcceptFrom(r.Main, wt, st, policy) })
	// the bus's directories and the shims are made while git checks the
	// files out (wt.Create after the checkout finds them, and refuses any
	// that a checkout replaced; the supervisor's bus checks every shim)
	addErr := addWorktree(ctx, r.Main.Root, sp.Worktree, sp.Branch, base, func() {
		if wt.Create() == nil {
			if e, _, err := store.Load(r.Main, st, nil); err == nil {
				launcher.PrepareShims(wt, e, exe)
			}
		}
	})
	// ours: git worktree add made the branch (it was not there before:
	// known, the refs are files git keeps as we read them)
	var ours bool
	if errors.Is(addErr, errNotPlain) {
		ours, addErr = r.gitWorktreeAdd(ctx, sp, base)
	}
	wg.Wait()
	sp.made = addErr == nil
	defer func() {
		if err != nil && !sp.made { // else unmakeTree removes it
			os.Remove(r.RecordPath(sp.Name))
		}
	}()
	switch {
	case addErr != nil:
		if ours {
			r.undoAdd(sp.Record) // what git left of its try, the branch included
		} else if addErr == errBranchThere || branchExists(ctx, r.Main.Root, sp.Branch) {
			return fmt.Errorf("%s: %w: branch %s is there (`git branch -D %s`, or pick another name)", sp.Name, ErrExists, sp.Branch, sp.Branch)
		}
		return addErr
	case putErr != nil:
		return putErr
	case acceptErr != nil:
		return acceptErr
	}
	if sp.Base, err = checkedOut(ctx, sp.Worktree, sp.Branch); err != nil {
		return err
	}
	if sp.Base != base { // MAIN's ref moved in between: the record says what the agent got
		if err := r.Put(sp.Record); err != nil {
			return err
		}
	}
	if sp.Copied, err = copyIncluded(ctx, r.Main.Root, sp.Worktree); err != nil {
		return err
	}
	if err := wt.Create(); err != nil {
		return err
	}
	if _, err := wt.WriteGitIgnore(); err != nil {
		return err
	}
	return writePolicy(wt.Policy(), policy)
}

// writePolicy replaces the worktree's policy.yaml (a checkout may hold
// the committed one) with the bytes accepted for MAIN.
func writePolicy(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// gitWorktreeAdd is addWorktree's work done by git worktree add, for
// the repositories addWorktree does not write for. ours: the branch was
// not there before (the refs are files git keeps as we read them), so a
// failure may take back what git made of it.
func (r *Registry) gitWorktreeAdd(ctx context.Context, sp *Spawned, base string) (ours bool, err error) {
	add := func() error {
		_, err := git(ctx, r.Main.Root, "worktree", "add", "--quiet", "-b", sp.Branch, "--end-of-options", sp.Worktree, base)
		return err
	}
	free, known := branchFree(r.Main.Root, sp.Branch)
	ours = known && free
	if known && !free {
		return false, errBranchThere
	}
	if err = add(); err != nil && ours && ctx.Err() == nil {
		// git does not promise that worktrees added at once to one
		// repository (a fan-out) all succeed: undo what this one did
		// and add it once more
		r.undoAdd(sp.Record)
		err = add()
	}
	return ours, err
}

// unmakeTree undoes a spawn that failed before its supervisor started.
func (r *Registry) unmakeTree(rec Record) {
	r.undoAdd(rec)
	os.Remove(r.RecordPath(rec.Name))
}

// undoAdd removes rec's worktree, whole or partial, and its branch.
func (r *Registry) undoAdd(rec Record) {
	ctx := context.Background()
	git(ctx, r.Main.Root, "worktree", "remove", "--force", "--end-of-options", rec.Worktree)
	os.RemoveAll(rec.Worktree)
	git(ctx, r.Main.Root, "worktree", "prune")
	git(ctx, r.Main.Root, "branch", "-D", "--end-of-options", rec.Branch)
}

var errBranchThere = errors.New("the branch is there")

func say(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintln(w, "sandbox: "+display.EscapeLine(fmt.Sprintf(format, a...)))
	}
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
