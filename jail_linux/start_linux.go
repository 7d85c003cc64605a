//go:build linux

package jail_linux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// starter carries one Start through its steps.
type starter struct {
	j    *Jail // nil for a spare
	f    *facts
	spec *jailspec.Spec
	log  *slog.Logger

	cfg  *initConfig
	pins *pins // placeholders and locks of the pinned names, until the jail ends
	cg   cgroup
	cmd  *exec.Cmd
	ctl  supCtl
	ln   net.Listener
	fwd  []net.Listener // Net.Forward's listeners
	outs []*output      // copies of the jail's output to non-file writers
	// stdio, for an init started ahead (spare_linux.go): the command's
	// standard streams, sent with the config
	stdio []*os.File
	// refill starts the next spare once this run has ended (nil when the
	// Jail keeps none)
	refill func()
}

// start forks the init first (its runtime's start-up is the longest
// step), then lets the launcher complete the spec meanwhile, and only
// then configures the init.
func (s *starter) start(ctx context.Context) (p jailspec.Process, err error) {
	userNS := s.f.userNS(s.spec.Enforce)
	if s.spec.Complete == nil {
		if s.cfg, err = newInitConfig(s.spec, userNS); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			code := s.abort()
			var ie *InitError
			if errors.As(err, &ie) && ie.Code == 0 {
				ie.Code = code
			}
		}
	}()
	if !s.adoptSpare(userNS) {
		if s.spec.Enforce.Cgroup {
			if s.cg, err = newCgroup(s.f, s.spec.Limits, s.spec.Enforce.PidNS); err != nil {
				return nil, err
			}
			s.log.Debug("jail cgroup created")
		}
		if err = s.launch(userNS); err != nil {
			return nil, err
		}
	}
	if s.spec.Complete != nil {
		if err = s.spec.Complete(s.spec); err != nil {
			return nil, err
		}
		if s.cfg, err = newInitConfig(s.spec, userNS); err != nil {
			return nil, err
		}
	}
	if s.cfg.MountNS {
		if s.pins, err = makePins(s.cfg, s.spec.FS.Placeholders, s.spec.FS.PinStash); err != nil {
			return nil, err
		}
		findTmpSockets(s.cfg)
	}
	if err = s.handshake(ctx); err != nil {
		return nil, err
	}
	s.log.Debug("jail command started")
	return newProcess(s), nil
}

// adoptSpare takes the Jail's spare init for this run, if it keeps one
// of the run's kind (spare_linux.go): its process, cgroup and control
// socket become the run's, and the command's streams go with the config.
// A stdin that is not a file needs the copy exec.Cmd makes at the
// start: such a run starts its own init.
func (s *starter) adoptSpare(userNS bool) bool {
	if s.j == nil {
		return false
	}
	stdin, ok := s.spec.Stdin.(*os.File)
	if !ok && s.spec.Stdin != nil {
		return false
	}
	sp, refill := s.j.takeSpare(spareKey{s.spec.Enforce, s.spec.Limits, userNS}, s.f, s.log)
	s.refill = refill
	if sp == nil {
		return false
	}
	stdout, stderr, err := s.outputs()
	if err != nil {
		sp.abort()
		return false
	}
	if stdin == nil {
		if stdin, err = os.Open(os.DevNull); err != nil {
			sp.abort()
			return false
		}
	}
	s.cg, s.cmd, s.ctl = sp.cg, sp.cmd, sp.ctl
	s.stdio = []*os.File{stdin, stdout, stderr}
	s.log.Debug("jail init started ahead taken", "pid", s.cmd.Process.Pid)
	return true
}

// launch re-executes this binary as the init.
func (s *starter) launch(userNS bool) error {
	sup, child, err := socketpair()
	if err != nil {
		return err
	}
	s.ctl = supCtl{c: sup}
	defer child.Close()
	stdout, stderr, err := s.outputs()
	if err != nil {
		return err
	}
	s.cmd = &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        []string{"sandbox-jail-init"},
		Env:         []string{initEnv + "=1", "GOGC=off"}, // GOGC: see jailinit.Main
		Stdin:       s.spec.Stdin,
		Stdout:      stdout,
		Stderr:      stderr,
		ExtraFiles:  []*os.File{child},
		SysProcAttr: s.sysProcAttr(userNS),
	}
	err = s.forkInCgroup()
	for _, f := range []*os.File{stdout, stderr} { // the jail holds its own copies now
		if f != nil && f != s.spec.Stdout && f != s.spec.Stderr {
			_ = f.Close()
		}
	}
	if err != nil {
		return err
	}
	s.log.Debug("jail init started", "pid", s.cmd.Process.Pid)
	return nil
}

// outputs returns the files the jail writes its output to (jailOutput);
// a Stderr that is the same writer as Stdout shares its pipe, as with
// os/exec, so that the two are never written concurrently.
func (s *starter) outputs() (stdout, stderr *os.File, err error) {
	stdout, o, err := jailOutput(s.spec.Stdout)
	if err != nil {
		return nil, nil, err
	}
	if o != nil {
		s.outs = append(s.outs, o)
	}
	if sameWriter(s.spec.Stderr, s.spec.Stdout) {
		return stdout, stdout, nil
	}
	stderr, o, err = jailOutput(s.spec.Stderr)
	if err != nil {
		return nil, nil, err
	}
	if o != nil {
		s.outs = append(s.outs, o)
	}
	return stdout, stderr, nil
}

// forkInCgroup starts the init from a thread of its own that stands in
// the jail's v1 cgroups meanwhile (cgroup.enter), so that the init is
// born inside them. A thread that cannot leave them again is never
// unlocked: the runtime ends it with its goroutine.
func (s *starter) forkInCgroup() error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		stuck, err := s.forkFromThread()
		if !stuck {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}

func (s *starter) forkFromThread() (stuck bool, err error) {
	leave := func() error { return nil }
	if s.cg != nil {
		leave, err = s.cg.enter()
	}
	if err == nil {
		if err = s.cmd.Start(); err != nil {
			err = fmt.Errorf("start jail init: %w", err)
		}
	}
	if lerr := leave(); lerr != nil {
		return true, errors.Join(err, lerr)
	}
	return false, err
}

func (s *starter) sysProcAttr(userNS bool) *syscall.SysProcAttr {
	e := s.spec.Enforce
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if e.MountNS {
		attr.Cloneflags |= unix.CLONE_NEWNS
	}
	if e.PidNS {
		attr.Cloneflags |= unix.CLONE_NEWPID
	}
	if e.NetNS {
		attr.Cloneflags |= unix.CLONE_NEWNET
	}
	if userNS {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= unix.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		// the init keeps these across its execve as a non-root user, and
		// drops every capability before it starts the command
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
	}
	if s.cg != nil {
		s.cg.prepare(attr)
	}
	return attr
}

// handshake sends the config, takes the proxy listener and waits for the
// init to start the command (it goes on by itself: the cgroup is in place
// before it starts).
func (s *starter) handshake(ctx context.Context) error {
	var err error
	if s.stdio != nil {
		err = s.ctl.sendJSONFiles(msgConfig, s.cfg, s.stdio)
		s.closeStdio()
	} else {
		err = s.ctl.sendJSON(msgConfig, s.cfg)
	}
	if err != nil {
		return &InitError{Msg: "send config: " + err.Error()}
	}
	if s.cfg.NetNS {
		if err := s.takeListener(); err != nil {
			return err
		}
	}
	return s.awaitReady(ctx)
}

// takeListener takes the forwarded ports' listeners (at most two per
// port) and then the proxy's.
func (s *starter) takeListener() error {
	for {
		typ, payload, fd, err := s.ctl.recv(setupTimeout)
		if err != nil || typ != msgListener && typ != msgForward || fd < 0 {
			if fd >= 0 {
				unix.Close(fd)
			}
			return s.initError(typ, payload, err)
		}
		ln, err := fileListener(fd)
		if err != nil {
			return err
		}
		if typ == msgListener {
			s.ln = ln
			return nil
		}
		s.fwd = append(s.fwd, ln)
		if len(s.fwd) > 2*len(s.cfg.Forward) {
			return &InitError{Msg: "bug: more forwarded listeners than ports"}
		}
	}
}

func fileListener(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "jail-listener")
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("jail listener: %w", err)
	}
	return ln, nil
}

func (s *starter) awaitReady(ctx context.Context) error {
	deadline := setupTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < deadline {
		deadline = max(time.Until(d), time.Millisecond)
	}
	typ, payload, _, err := s.ctl.recv(deadline)
	if err != nil || typ != msgReady {
		return s.initError(typ, payload, err)
	}
	return nil
}

// initError turns an unexpected reply into an error carrying the init's
// own message.
func (s *starter) initError(typ byte, payload []byte, err error) error {
	switch {
	case err != nil:
		return &InitError{Msg: err.Error()}
	case typ == msgError:
		var m errorMsg
		if json.Unmarshal(payload, &m) != nil {
			m = errorMsg{Code: exitSetup, Msg: string(payload)}
		}
		return &InitError{Code: m.Code, Msg: m.Msg}
	}
	return &InitError{Msg: fmt.Sprintf("bug: unexpected control message %q", typ)}
}

// closeStdio closes this process's copies of the streams sent to an init
// started ahead (the jail holds its own), keeping the spec's own files.
func (s *starter) closeStdio() {
	for _, f := range s.stdio {
		if f != nil && f != s.spec.Stdin && f != s.spec.Stdout && f != s.spec.Stderr {
			_ = f.Close()
		}
	}
	s.stdio = nil
}

// abort undoes a failed start: kill the init, reap it, remove the
// cgroup. It returns the init's exit code (-1 if it never ran).
func (s *starter) abort() int {
	code := -1
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		code = s.cmd.ProcessState.ExitCode()
	}
	if s.ln != nil {
		_ = s.ln.Close()
	}
	for _, ln := range s.fwd {
		_ = ln.Close()
	}
	if s.ctl.c != nil {
		_ = s.ctl.c.Close()
	}
	s.closeStdio()
	if s.cg != nil {
		_ = s.cg.kill()
		if err := s.cg.destroy(); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("jail cgroup left behind", "err", err)
		}
	}
	for _, o := range s.outs {
		o.drain()
	}
	s.pins.release(s.log)
	return code
}
