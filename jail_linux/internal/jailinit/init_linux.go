//go:build linux

package jailinit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/sandbox-dev/sandbox/internal/resident"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/initsig"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/seccomprules"
	"golang.org/x/sys/unix"
)

// Env marks a process started by the supervisor as the jail's init; the
// init's control socket is fd ctlFD.
const (
	Env   = initsig.Env
	ctlFD = 3
)

// Exit codes of the init when the command never ran (as env(1) and
// shells use them).
const (
	ExitSetup    = 125
	exitNoExec   = 126
	exitNotFound = 127
)

// The init runs here, during package initialisation, and exits: this
// package's imports are few and initialise early, so an init process
// skips the initialisation of the packages it never uses (about half of
// the binary's, the costly ones among them).
func init() {
	if os.Getenv(Env) == "1" {
		os.Exit(Main())
	}
}

// Main is the jail's init; it returns its exit code. The supervisor
// starts it with GOGC=off: a short set-up, then a small idle reaper, no
// collection needed (and runtime/debug would initialise late).
// It applies the restrictions to its own (locked) thread, forks the
// command from that thread, and stays as the jail's pid 1: it forwards
// signals, reaps orphans, and exits with the command's status, taking
// every other jailed process with it.
func Main() int {
	runtime.LockOSThread()  // never unlocked: the command is forked from this restricted thread
	unix.CloseOnExec(ctlFD) // the command must never hold the control socket
	ctl := Ctl{FD: ctlFD}
	if err := errors.Join(undumpable(), closeInherited()); err != nil {
		if ctl.sendJSON(MsgError, ErrorMsg{Code: ExitSetup, Msg: CapMsg(err.Error())}) != nil {
			fmt.Fprintln(os.Stderr, "sandbox: jail init:", err)
		}
		return ExitSetup
	}
	// the forwarded signals' registration began at package initialisation
	// (initsig); it is done before the restrictions and the command
	// (setupAndStart waits for it)
	sigs, caught := initsig.Started()
	warmDecoder()
	pid, code, err := setupAndStart(ctl, caught)
	if err != nil {
		if ctl.sendJSON(MsgError, ErrorMsg{Code: code, Msg: CapMsg(err.Error())}) != nil {
			fmt.Fprintln(os.Stderr, "sandbox: jail init:", err)
		}
		return code
	}
	_ = ctl.sendJSON(MsgReady, ReadyMsg{Pid: pid})
	go forward(sigs, pid)
	go resident.ReleaseAfter(context.Background(), Settled) // the init ends with the command
	st := reap(pid)
	st.Alone = Emptied()
	_ = ctl.Send(MsgExit, st.Encode(), -1)
	return st.Code
}

// Emptied ends what the command left in the jail, when the init is pid 1
// of the jail's pid namespace (what its exit would do anyway): it kills
// every other process there, reaps them all (orphans come to pid 1, the
// children of a dying process before it can be reaped), and lets go of
// the command's standard streams. It reports whether it did: then the
// supervisor can tell the command's end to whoever waits for it while
// the init's own exit (the namespaces' teardown) goes on. Without a pid
// namespace of its own (a degraded jail) it does nothing: a kill of -1
// would reach every process of the user's.
func Emptied() bool {
	if unix.Getpid() != 1 {
		return false
	}
	if err := unix.Kill(-1, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
		return false
	}
	for {
		_, err := unix.Wait4(-1, nil, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if !errors.Is(err, unix.ECHILD) {
			if err != nil {
				return false
			}
			continue
		}
		break
	}
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	for fd := range 3 {
		if err != nil || unix.Dup3(null, fd, 0) != nil {
			unix.Close(fd)
		}
	}
	return true
}

// warmDecoder has encoding/json learn Config's fields while the init waits
// for it (long, for an init started ahead; while the supervisor completes
// the spec, for one started with its run): the first decoding of a type
// in a process costs far more than the next, and the config's decoding is
// on the run's path.
func warmDecoder() {
	var c Config
	_ = json.Unmarshal([]byte(`{"argv":[""],"env":[""],"forward":[0],"substitutes":[{"Path":"","Source":""}],"landlock":false}`), &c)
}

func setupAndStart(ctl Ctl, caught <-chan struct{}) (pid, code int, err error) {
	raw, stdio, err := ctl.expect(MsgConfig)
	if err != nil {
		return 0, ExitSetup, err
	}
	if err := takeStdio(stdio); err != nil {
		return 0, ExitSetup, err
	}
	cfg := &Config{}
	if err := json.Unmarshal(raw, cfg); err != nil {
		return 0, ExitSetup, fmt.Errorf("bug: config: %w", err)
	}
	if err := CheckWritable(cfg.Writable); err != nil {
		return 0, ExitSetup, err
	}
	if err := setupNamespaces(ctl, cfg); err != nil {
		return 0, ExitSetup, err
	}
	path, err := lookPath(cfg.Argv[0], cfg.Env, cfg.Dir)
	if err != nil {
		return 0, lookPathCode(err), err
	}
	<-caught
	if err := restrictThread(cfg); err != nil {
		return 0, ExitSetup, err
	}
	// the command gets 0, 1, 2 and nothing else (no control socket, no
	// descriptor the init's runtime opened that Landlock could not check)
	if err := CloexecInherited(); err != nil {
		return 0, ExitSetup, err
	}
	if dpath, argv, env, ok := directCommand(cfg); ok {
		if pid, err := forkExec(dpath, argv, env, cfg.Dir); err == nil {
			return pid, 0, nil
		}
		// not a program after all (a script without #!, no permission):
		// the shell's own lookup and message
	}
	return startCommand(path, cfg)
}

// takeStdio makes the descriptors passed with the config (an init
// started ahead of its command, with the null device for streams) the
// init's, and so the command's, standard input, output and error.
func takeStdio(fds []int) error {
	if len(fds) == 0 {
		return nil
	}
	defer closeAll(fds)
	if len(fds) != 3 {
		return fmt.Errorf("bug: %d descriptors passed with the config, want 3", len(fds))
	}
	for i, fd := range fds {
		if err := unix.Dup3(fd, i, 0); err != nil {
			return fmt.Errorf("standard streams: %w", err)
		}
	}
	return nil
}

func setupNamespaces(ctl Ctl, cfg *Config) error {
	if cfg.MountNS {
		if err := setupMounts(cfg); err != nil {
			return err
		}
	}
	if cfg.NetNS {
		return setupNet(ctl, cfg)
	}
	return nil
}

// restrictThread applies, in order, no_new_privs, the capability drop,
// Landlock and last the seccomp filter, all to the calling thread.
func restrictThread(cfg *Config) error {
	if !cfg.anyRestriction() {
		return nil
	}
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	if cfg.NoNewPrivs || cfg.UserNS {
		if err := dropCaps(); err != nil {
			return err
		}
	}
	if cfg.Landlock {
		abi, err := ll.LandlockGetABIVersion()
		if err != nil {
			return fmt.Errorf("%w: Landlock: %v", ErrLayer, err)
		}
		if err := applyLandlock(cfg, abi); err != nil {
			return err
		}
	}
	if cfg.Seccomp {
		v := seccomprules.WithoutNetNS
		if cfg.NetNS || cfg.NetOpen { // an open network needs UDP (DNS)
			v = seccomprules.WithNetNS
		}
		return loadSeccomp(v)
	}
	return nil
}

// startCommand forks the command from the restricted thread, in a process
// group of its own (the init forwards signals to the group).
func startCommand(path string, cfg *Config) (int, int, error) {
	pid, err := forkExec(path, cfg.Argv, cfg.Env, cfg.Dir)
	if err != nil {
		code := exitNoExec
		if errors.Is(err, unix.ENOENT) {
			code = exitNotFound
		}
		return 0, code, fmt.Errorf("%s: %w", cfg.Argv[0], err)
	}
	return pid, 0, nil
}

func forkExec(path string, argv, env []string, dir string) (int, error) {
	return syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
}

func lookPathCode(err error) int {
	if errors.Is(err, errNotFound) || errors.Is(err, os.ErrNotExist) {
		return exitNotFound
	}
	return exitNoExec
}

// Settled is how long a command runs before its init, idle from then on
// but for reaping and signals, gives back its mappings of the code that
// set the jail up (resident.Release). A connector's command is mostly
// over by then; an agent runs for hours.
const Settled = 2 * time.Second

func forward(sigs <-chan os.Signal, pid int) {
	for s := range sigs {
		_ = unix.Kill(-pid, s.(unix.Signal))
	}
}

// reap waits for every child (orphans included) until the command ends.
func reap(pid int) ExitMsg {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return ExitMsg{Code: ExitSetup} // ECHILD: cannot happen while the command lives
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return ExitMsg{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
		}
		return ExitMsg{Code: ws.ExitStatus()}
	}
}
