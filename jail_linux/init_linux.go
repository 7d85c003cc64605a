//go:build linux

package jail_linux

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/initsig"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/seccomprules"
	"golang.org/x/sys/unix"
)

// initEnv marks a process started by Start as the jail's init; the init's
// control socket is fd initCtlFD.
const (
	initEnv   = initsig.Env
	initCtlFD = 3
)

// Exit codes of the init when the command never ran (as env(1) and
// shells use them).
const (
	exitSetup    = 125
	exitNoExec   = 126
	exitNotFound = 127
)

// MaybeInit runs the jail's init and exits when this process was started
// as one by Start; otherwise it returns at once. Call it first thing in
// main (and in TestMain of tests that start jails).
func MaybeInit() {
	if os.Getenv(initEnv) != "1" {
		return
	}
	debug.SetGCPercent(-1) // a short set-up, then a small idle reaper: no collection needed
	os.Exit(runInit())
}

// runInit applies the restrictions to its own (locked) thread, forks the
// command from that thread, and stays as the jail's pid 1: it forwards
// signals, reaps orphans, and exits with the command's status, taking
// every other jailed process with it.
func runInit() int {
	runtime.LockOSThread()      // never unlocked: the command is forked from this restricted thread
	unix.CloseOnExec(initCtlFD) // the command must never hold the control socket
	ctl := initCtl{fd: initCtlFD}
	if err := errors.Join(undumpable(), closeInherited()); err != nil {
		if ctl.sendJSON(msgError, errorMsg{Code: exitSetup, Msg: capMsg(err.Error())}) != nil {
			fmt.Fprintln(os.Stderr, "sandbox: jail init:", err)
		}
		return exitSetup
	}
	// the forwarded signals' registration began at package initialisation
	// (initsig); it is done before the restrictions and the command
	// (setupAndStart waits for it)
	sigs, caught := initsig.Started()
	pid, code, err := setupAndStart(ctl, caught)
	if err != nil {
		if ctl.sendJSON(msgError, errorMsg{Code: code, Msg: capMsg(err.Error())}) != nil {
			fmt.Fprintln(os.Stderr, "sandbox: jail init:", err)
		}
		return code
	}
	_ = ctl.sendJSON(msgReady, readyMsg{Pid: pid})
	go forward(sigs, pid)
	st := reap(pid)
	_ = ctl.send(msgExit, st.encode(), -1)
	return st.Code
}

// capMsg keeps an error message well under the supervisor's maxInitMsg.
func capMsg(s string) string {
	const limit = 4 << 10
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}

func setupAndStart(ctl initCtl, caught <-chan struct{}) (pid, code int, err error) {
	raw, err := ctl.expect(msgConfig)
	if err != nil {
		return 0, exitSetup, err
	}
	cfg := &initConfig{}
	if err := json.Unmarshal(raw, cfg); err != nil {
		return 0, exitSetup, fmt.Errorf("bug: config: %w", err)
	}
	if err := checkWritable(cfg.Writable); err != nil {
		return 0, exitSetup, err
	}
	if err := setupNamespaces(ctl, cfg); err != nil {
		return 0, exitSetup, err
	}
	path, err := lookPath(cfg.Argv[0], cfg.Env, cfg.Dir)
	if err != nil {
		return 0, lookPathCode(err), err
	}
	<-caught
	if err := restrictThread(cfg); err != nil {
		return 0, exitSetup, err
	}
	// the command gets 0, 1, 2 and nothing else (no control socket, no
	// descriptor the init's runtime opened that Landlock could not check)
	if err := cloexecInherited(); err != nil {
		return 0, exitSetup, err
	}
	return startCommand(path, cfg)
}

func setupNamespaces(ctl initCtl, cfg *initConfig) error {
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
func restrictThread(cfg *initConfig) error {
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
func startCommand(path string, cfg *initConfig) (int, int, error) {
	pid, err := syscall.ForkExec(path, cfg.Argv, &syscall.ProcAttr{
		Dir:   cfg.Dir,
		Env:   cfg.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		code := exitNoExec
		if errors.Is(err, unix.ENOENT) {
			code = exitNotFound
		}
		return 0, code, fmt.Errorf("%s: %w", cfg.Argv[0], err)
	}
	return pid, 0, nil
}

func lookPathCode(err error) int {
	if errors.Is(err, errNotFound) || errors.Is(err, os.ErrNotExist) {
		return exitNotFound
	}
	return exitNoExec
}

func forward(sigs <-chan os.Signal, pid int) {
	for s := range sigs {
		_ = unix.Kill(-pid, s.(unix.Signal))
	}
}

// reap waits for every child (orphans included) until the command ends.
func reap(pid int) exitMsg {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return exitMsg{Code: exitSetup} // ECHILD: cannot happen while the command lives
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return exitMsg{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
		}
		return exitMsg{Code: ws.ExitStatus()}
	}
}
