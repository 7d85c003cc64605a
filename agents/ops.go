package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/adapter"
)

// How long stop waits for a supervisor to end its jail after SIGTERM,
// and then after SIGKILL.
const (
	stopGrace = 10 * time.Second
	killGrace = 5 * time.Second
)

// Stop ends agent name's supervisor, and with it the jail. It reports
// whether there was one running.
func (r *Registry) Stop(ctx context.Context, name string) (bool, error) {
	rec, err := r.Get(name)
	if err != nil {
		return false, err
	}
	if !r.Held(name) || rec.PID <= 0 {
		return false, r.markStopped(name)
	}
	for _, step := range []struct {
		kill bool
		wait time.Duration
	}{{false, stopGrace}, {true, killGrace}} {
		if err := signalSupervisor(rec.PID, step.kill); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return true, err
		}
		if r.waitFree(ctx, name, step.wait) {
			return true, r.markStopped(name)
		}
	}
	return true, fmt.Errorf("%s: the supervisor (pid %d) did not end", name, rec.PID)
}

// waitFree waits until nobody holds name's lock.
func (r *Registry) waitFree(ctx context.Context, name string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if !r.Held(name) {
			return true
		}
		time.Sleep(25 * time.Millisecond)
	}
	return !r.Held(name)
}

// markStopped records a supervisor that ended without saying so (killed)
// as stopped; a final state stays.
func (r *Registry) markStopped(name string) error {
	lock, err := r.Lock(name)
	if err != nil {
		return err
	}
	defer lock.Release()
	_, err = r.Update(name, func(rec *Record) {
		if !rec.State.Final() {
			rec.State, rec.Ended = Stopped, time.Now().UTC()
		}
	})
	return err
}

// Resume restarts a stopped (or ended) agent in its worktree, with the
// agent's resume flag when it has one.
func (r *Registry) Resume(ctx context.Context, name, exe string) (Record, error) {
	lock, err := r.Lock(name)
	if err != nil {
		return Record{}, err
	}
	defer lock.Release()
	rec, err := r.read(name)
	if err != nil {
		return rec, err
	}
	if err := worktreeThere(rec); err != nil {
		return rec, err
	}
	if a, ok := adapter.Lookup(rec.Agent); ok && a.Launch != nil {
		rec.Argv = a.Launch.Argv(rec.Task, rec.Headless, true)
	}
	sup, err := r.launchSupervisor(name, lock, exe)
	if err != nil {
		return rec, err
	}
	rec.State, rec.Exit, rec.Error, rec.Ended = Starting, nil, "", time.Time{}
	rec.PID, rec.Started = sup.pid, time.Now().UTC()
	if err := r.Put(rec); err != nil {
		sup.abort()
		return rec, err
	}
	return sup.proceed(ctx)
}

// worktreeThere refuses to run an agent whose worktree is gone.
func worktreeThere(rec Record) error {
	fi, err := os.Lstat(filepath.Join(rec.Worktree, ".git"))
	if err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: its worktree %s is gone: %w (`sandbox agents rm %s`)", rec.Name, rec.Worktree, ErrNoWorktree, rec.Name)
	}
	return nil
}

// RemoveOptions is one `sandbox agents rm`.
type RemoveOptions struct {
	KeepBranch bool
	Out        io.Writer
}

// Rm removes a stopped agent: its worktree (also when it was deleted
// behind our back), its branch unless kept, and its record and log.
func (r *Registry) Rm(ctx context.Context, name string, o RemoveOptions) error {
	lock, err := r.Lock(name)
	if errors.Is(err, ErrBusy) {
		return fmt.Errorf("%s is running: `sandbox agents stop %s` first", name, name)
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	rec, err := r.read(name)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(rec.Worktree); errors.Is(err, fs.ErrNotExist) {
		say(o.Out, "worktree %s was already gone", rec.Worktree)
	} else if _, err := git(ctx, r.Main.Root, "worktree", "remove", "--force", "--force", "--end-of-options", rec.Worktree); err != nil {
		if err := os.RemoveAll(rec.Worktree); err != nil {
			return fmt.Errorf("remove %s: %w", rec.Worktree, err)
		}
	}
	git(ctx, r.Main.Root, "worktree", "prune")
	say(o.Out, "removed worktree %s", rec.Worktree)
	if !o.KeepBranch && branchExists(ctx, r.Main.Root, rec.Branch) {
		tip, _ := git(ctx, r.Main.Root, "rev-parse", "--verify", "--end-of-options", "refs/heads/"+rec.Branch)
		if _, err := git(ctx, r.Main.Root, "branch", "-D", "--end-of-options", rec.Branch); err != nil {
			return err
		}
		say(o.Out, "deleted branch %s (was %s)", rec.Branch, short(strings.TrimSpace(tip)))
	}
	return r.Remove(name)
}

// Diff writes what agent name changed: its branch against its base
// (base...branch, in MAIN, whose refs and objects the agent cannot
// rewrite), then what its worktree has not committed.
func (r *Registry) Diff(ctx context.Context, name string, w io.Writer, stat bool) error {
	rec, err := r.Get(name)
	if err != nil {
		return err
	}
	args := []string{"diff", "--no-ext-diff", "--no-textconv", "--no-color"}
	if stat {
		args = append(args, "--stat")
	}
	out, err := git(ctx, r.Main.Root, append(args, "--end-of-options", rec.Base+"..."+rec.Branch)...)
	if err != nil {
		return err
	}
	io.WriteString(w, out)
	if unc, err := r.worktreeGit(ctx, rec, append(args, "HEAD")...); err == nil && unc != "" {
		fmt.Fprintf(w, "\n# not committed in %s:\n%s", rec.Worktree, unc)
	}
	return nil
}

// worktreeGit runs git on the agent's worktree with its git dir taken
// from MAIN's repository (the worktree's .git file is the agent's to
// rewrite, and could name any repository).
func (r *Registry) worktreeGit(ctx context.Context, rec Record, args ...string) (string, error) {
	admin, err := r.adminDir(ctx, rec.Worktree)
	if err != nil {
		return "", err
	}
	return git(ctx, r.Main.Root, append([]string{"--git-dir=" + admin, "--work-tree=" + rec.Worktree}, args...)...)
}

// adminDir finds, in MAIN's common git dir, the administrative directory
// of the worktree at wt.
func (r *Registry) adminDir(ctx context.Context, wt string) (string, error) {
	common, err := git(ctx, r.Main.Root, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(strings.TrimSpace(common), "worktrees")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "gitdir"))
		if err == nil && strings.TrimSpace(string(b)) == filepath.Join(wt, ".git") {
			return filepath.Join(dir, e.Name()), nil
		}
	}
	return "", fmt.Errorf("%s: %w", wt, ErrNoWorktree)
}

// Wait waits until agent name's supervisor ends, and returns its record.
func (r *Registry) Wait(ctx context.Context, name string) (Record, error) {
	for r.Held(name) {
		select {
		case <-ctx.Done():
			return Record{}, ctx.Err()
		case <-time.After(followPoll):
		}
	}
	return r.Get(name)
}
