package broker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// waited is how a jail's Wait returned.
type waited struct {
	st  jailspec.ExitStatus
	err error
}

// jailed is one command started through a Jailer.
type jailed struct {
	p       jailspec.Process
	started time.Time
	pipes   *streams
}

// startJailed starts the command in its grant jail, or, where the jail
// cannot be built, bare in a cgroup of its own. nil with a nil error
// means neither is possible here: the caller runs it as its own child.
// where says which it was.
func startJailed(ctx context.Context, s Spec, path string, args []string, o *output) (j *jailed, where []string, err error) {
	dir, err := realWorkDir(s.Root, s.Dir)
	if err != nil {
		return nil, nil, err
	}
	env, err := s.jailEnv()
	if err != nil {
		return nil, nil, err
	}
	grant := s.Grant
	grant.Env = envNames(env)
	if err := precreate(grant.Write); err != nil {
		return nil, nil, err
	}
	c := JailCommand{Argv: append([]string{path}, args[1:]...), Dir: dir, Env: env, Grant: grant}
	j, err = startIn(ctx, s.Jail, c, s.Stdin, o)
	if err == nil {
		return j, Describe(grant), nil
	}
	if !errors.Is(err, ErrNoJail) {
		return nil, nil, err
	}
	why := err.Error()
	c.Bare, c.Grant = true, Grant{}
	if j, err = startIn(ctx, s.Jail, c, s.Stdin, o); err == nil {
		return j, DescribeUnjailed(why + " (in a cgroup of its own, killed whole at the end)"), nil
	}
	if !errors.Is(err, ErrNoJail) {
		return nil, nil, err
	}
	return nil, DescribeUnjailed(why + "; no cgroup either: " + err.Error()), nil
}

func startIn(ctx context.Context, jail Jailer, c JailCommand, stdin []byte, o *output) (*jailed, error) {
	st, err := openStreams(stdin)
	if err != nil {
		return nil, err
	}
	c.Stdin, c.Stdout, c.Stderr = st.childIn, st.childOut, st.childErr
	cloexecInherited()
	started := time.Now()
	p, err := jail.Start(ctx, c)
	st.closeChild()
	if err != nil {
		st.closeOurs()
		return nil, err
	}
	st.pump(o, stdin)
	return &jailed{p: p, started: started, pipes: st}, nil
}

// finish waits for the jailed command (terminating it on timeout or
// cancellation: SIGTERM to its group, the whole jail killed after
// KillGrace), drains its output and fills the Outcome. The jail's cgroup
// is emptied when it ends, whatever left the command's process group.
func (j *jailed) finish(ctx context.Context, s Spec, o *output) (oc Outcome, err error) {
	done := make(chan waited, 1)
	go func() {
		st, err := j.p.Wait(context.WithoutCancel(ctx))
		done <- waited{st, err}
	}()
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	var w waited
	var timedOut bool
	var ctxErr error
	select {
	case w = <-done:
	case <-timer.C:
		timedOut = true
		w = j.terminate(done)
	case <-ctx.Done():
		ctxErr = ctx.Err()
		w = j.terminate(done)
	}
	oc.Finished = time.Now()
	j.pipes.drain()
	oc.Started, oc.Duration, oc.TimedOut = j.started, oc.Finished.Sub(j.started), timedOut
	oc.ExitCode, oc.Signal = w.st.Code, signalName(w.st.Signal)
	if w.err != nil && ctxErr == nil {
		o.note("jail: %v", w.err)
	}
	switch {
	case timedOut:
		o.note("timed out after %s; every process of the command was killed", s.Timeout)
	case ctxErr != nil:
		o.note("cancelled (%v); every process of the command was killed", ctxErr)
	}
	o.fill(&oc)
	if ctxErr != nil {
		return oc, fmt.Errorf("broker: cancelled, every process killed: %w", ctxErr)
	}
	return oc, nil
}

// terminate asks the command to end, then kills the jail after KillGrace.
func (j *jailed) terminate(done <-chan waited) waited {
	_ = j.p.Signal(sigTerm)
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
	select {
	case w := <-done:
		return w
	case <-grace.C:
		_ = j.p.Kill()
		return <-done
	}
}

// realWorkDir is the working directory for a jail: the resolved path of
// dir (default root; relative to root), which must be a directory inside
// the project. The jail's init changes into it by path; the jail confines
// whatever it finds there.
func realWorkDir(root, dir string) (string, error) {
	rootReal, err := realRoot(root)
	if err != nil {
		return "", err
	}
	want := dirArg(rootReal, dir)
	real, err := filepath.EvalSymlinks(want)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrCwd, want, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%w: %s: not a directory", ErrCwd, want)
	}
	if !folder.Within(rootReal, real) {
		return "", fmt.Errorf("%w: %s resolves to %s, outside the project %s", ErrCwd, want, real, rootReal)
	}
	return real, nil
}

// jailEnv is the command's environment in the jail: the ssh-agent's
// socket only when the grant includes it.
func (s Spec) jailEnv() ([]string, error) {
	env := make([]string, 0, len(s.Env))
	sock := getenv(s.Env, "SSH_AUTH_SOCK")
	for _, kv := range s.Env {
		if strings.HasPrefix(kv, "SSH_AUTH_SOCK=") && !containsPath(s.Grant.Read, sock) {
			continue
		}
		env = append(env, kv)
	}
	return env, nil
}

func containsPath(list []string, p string) bool {
	for _, x := range list {
		if p != "" && filepath.Clean(p) == x {
			return true
		}
	}
	return false
}

func envNames(env []string) []string {
	var names []string
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			names = addUnique(names, k)
		}
	}
	return names
}
