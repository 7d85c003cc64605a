package broker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Run executes spec and waits for it, streaming its output as it arrives.
//
// A nil error means the command ran to its end (whatever its exit code;
// see Outcome). An error with a zero Outcome.Started means nothing ran
// (bad spec, cwd refused, log not created, not started). An error with
// Started set means it ran but was cancelled by ctx (the error wraps
// ctx.Err(); the group was killed) or the log could not be written
// (ErrLog); the Outcome is complete either way.
func Run(ctx context.Context, spec Spec) (oc Outcome, err error) {
	s, err := spec.withDefaults()
	if err != nil {
		return oc, err
	}
	if err := ctx.Err(); err != nil {
		return oc, fmt.Errorf("broker: not started: %w", err)
	}
	if s.Grant.Git != GitNone {
		pins, err := gitEnv(s.Root, s.Dir, s.Grant.Git, s.Env)
		if err != nil {
			return oc, err
		}
		s.Env = append(s.Env, pins...)
	}
	path, args, err := command(s)
	if err != nil {
		return oc, err
	}
	log, err := createLog(s.LogPath)
	if err != nil {
		return oc, err
	}
	o := newOutput(log, s)
	defer func() {
		if cerr := o.close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if s.Jail != nil {
		j, where, err := startJailed(ctx, s, path, args, o)
		if err != nil {
			o.note("could not start: %v", err)
			return oc, err
		}
		if j != nil {
			oc, err = j.finish(ctx, s, o)
			oc.Where, oc.Jailed = where, !strings.HasPrefix(where[0], unjailedMark)
			return oc, err
		}
		o.note("%s", where[0])
		defer func() { oc.Where = where }()
	}
	p, err := start(s, path, args, o)
	if err != nil {
		o.note("could not start: %v", err)
		return oc, err
	}
	return p.finish(ctx, s, o)
}

// proc is one started command.
type proc struct {
	cmd     *exec.Cmd
	started time.Time
	exited  chan struct{} // closed once the leader has exited
	reaped  bool          // awaitExit already reaped the leader (waitErr set)
	waitErr error
	pumps   sync.WaitGroup
	readers []*os.File // our ends of stdout and stderr
	stdin   *os.File   // our end of stdin, nil without Stdin
	//lint:ignore U1000 used on Windows (job_windows.go); empty on Unix
	os procOS // what this OS tracks the command's processes with
}

// start checks the working directory and starts the command with its
// streams connected to o.
func start(s Spec, path string, args []string, o *output) (p *proc, err error) {
	dir, release, err := workDir(s.Root, s.Dir)
	if err != nil {
		return nil, err
	}
	defer release()
	p = &proc{exited: make(chan struct{})}
	p.cmd = &exec.Cmd{Path: path, Args: args, Dir: dir, Env: s.Env, SysProcAttr: sysProcAttr()}
	child, err := p.pipes(s.Stdin)
	if err != nil {
		return nil, err
	}
	cloexecInherited()
	p.started = time.Now()
	err = p.cmd.Start()
	closeAll(child)
	if err == nil {
		err = p.afterStart()
	}
	if err != nil {
		closeAll(append(p.readers, p.stdin))
		return nil, fmt.Errorf("%w: %s: %w", ErrStart, args[0], err)
	}
	p.pumps.Add(2)
	go func() { defer p.pumps.Done(); o.pump(Stdout, p.readers[0]) }()
	go func() { defer p.pumps.Done(); o.pump(Stderr, p.readers[1]) }()
	if p.stdin != nil {
		go feed(p.stdin, s.Stdin)
	}
	return p, nil
}

// pipes connects the command's streams and returns the child's ends, which
// the caller closes once the child has started.
func (p *proc) pipes(stdin []byte) (child []*os.File, err error) {
	defer func() {
		if err != nil {
			closeAll(append(child, p.readers...))
			p.readers = nil
			err = fmt.Errorf("%w: pipes: %w", ErrStart, err)
		}
	}()
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			return child, err
		}
		p.readers, child = append(p.readers, r), append(child, w)
	}
	p.cmd.Stdout, p.cmd.Stderr = child[0], child[1]
	if stdin == nil {
		return child, nil // exec.Cmd gives the child /dev/null
	}
	r, w, err := os.Pipe()
	if err != nil {
		return child, err
	}
	p.stdin, p.cmd.Stdin = w, r
	return append(child, r), nil
}

// feed writes data whole to w, then closes it (EOF for the child).
func feed(w *os.File, data []byte) {
	w.Write(data) // an error means the child closed stdin or we gave up
	w.Close()
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}
