//go:build windows

package jail_windows

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/windows"
)

// bound is the longest any wait in these tests may take.
const bound = 30 * time.Second

// helperSpec jails this test binary as helper mode.
func helperSpec(t *testing.T, mode string, args ...string) *jailspec.Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &jailspec.Spec{
		Argv: append([]string{exe}, args...), Env: append(os.Environ(), helperVar+"="+mode),
		Dir: testenv.TempDir(t), Enforce: jailspec.Enforce{Cgroup: true},
	}
}

// run starts spec and waits for it, bounded.
func run(t *testing.T, spec *jailspec.Spec) (jailspec.ExitStatus, string) {
	t.Helper()
	var out bytes.Buffer
	spec.Stdout, spec.Stderr = &out, &out
	var j Jail
	p, err := j.Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	st, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v (output %q)", err, out.String())
	}
	return st, out.String()
}

func TestCommandRunsInItsJob(t *testing.T) {
	st, out := run(t, helperSpec(t, "injob"))
	if st.Code != 0 || !strings.Contains(out, "injob true") {
		t.Fatalf("the command was not in a job: code %d, output %q", st.Code, out)
	}
}

func TestArgvEnvAndExitCode(t *testing.T) {
	spec := helperSpec(t, "echo", `a b`, `"q"`, `back\slash\`, "")
	spec.Env = append(spec.Env, "JW_VALUE=v1")
	st, out := run(t, spec)
	if want := `a b|"q"|back\slash\| v1`; st.Code != 0 || strings.TrimSpace(out) != want {
		t.Fatalf("got code %d, %q; want %q", st.Code, out, want)
	}
	for _, code := range []int{0, 1, 3, 125, 255, 1000} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			if st, _ := run(t, helperSpec(t, "exit", strconv.Itoa(code))); st.Code != code {
				t.Fatalf("exit code %d, want %d", st.Code, code)
			}
		})
	}
}

func TestBreakawayRefused(t *testing.T) {
	st, out := run(t, helperSpec(t, "breakaway"))
	if st.Code != 0 {
		t.Fatalf("a process broke away from the job (code %d): %s", st.Code, out)
	}
}

func TestStartErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*jailspec.Spec)
		code int
		is   error
	}{
		{"not found", func(s *jailspec.Spec) { s.Argv = []string{"no-such-command-jw"} }, 127, ErrNotFound},
		{"no argv", func(s *jailspec.Spec) { s.Argv = nil }, 125, ErrSpec},
		{"relative dir", func(s *jailspec.Spec) { s.Dir = "rel" }, 125, ErrSpec},
		{"landlock", func(s *jailspec.Spec) { s.Enforce.Landlock = true }, 125, ErrLayer},
		{"seccomp", func(s *jailspec.Spec) { s.Enforce.Seccomp = true }, 125, ErrLayer},
		{"no_new_privs", func(s *jailspec.Spec) { s.Enforce.NoNewPrivs = true }, 125, ErrLayer},
		{"mount", func(s *jailspec.Spec) { s.Enforce.MountNS = true }, 125, ErrLayer},
		{"network", func(s *jailspec.Spec) { s.Enforce.NetNS = true }, 125, ErrLayer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := helperSpec(t, "exit", "0")
			tc.edit(spec)
			var j Jail
			p, err := j.Start(context.Background(), spec)
			var se *StartError
			if p != nil || !errors.As(err, &se) || se.ExitCode() != tc.code || !errors.Is(err, tc.is) {
				t.Fatalf("Start = %v, %v; want a StartError %d wrapping %v", p, err, tc.code, tc.is)
			}
		})
	}
}

func TestSignal(t *testing.T) {
	spec := helperSpec(t, "sleep")
	var j Jail
	p, err := j.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	if err := p.Signal(os.Interrupt); err != nil {
		t.Errorf("Signal(Interrupt) = %v, want nil (the console delivers it)", err)
	}
	if err := p.Signal(windows.SIGTERM); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Signal(SIGTERM) = %v, want ErrUnsupported", err)
	}
	if err := p.Signal(os.Kill); err != nil {
		t.Fatalf("Signal(Kill) = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if st, err := p.Wait(ctx); err != nil || st.Code != KilledCode {
		t.Fatalf("Wait after Kill = %+v, %v; want code %d", st, err, KilledCode)
	}
}

func TestCancelKills(t *testing.T) {
	var j Jail
	p, err := j.Start(context.Background(), helperSpec(t, "sleep"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	st, err := p.Wait(ctx)
	if !errors.Is(err, context.Canceled) || st.Code != KilledCode {
		t.Fatalf("Wait = %+v, %v; want code %d and context.Canceled", st, err, KilledCode)
	}
}

func TestProxyListenerNil(t *testing.T) {
	var j Jail
	p, err := j.Start(context.Background(), helperSpec(t, "exit", "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Wait(context.Background())
	if p.ProxyListener() != nil {
		t.Fatal("ProxyListener is not nil: there is no network namespace on Windows")
	}
}

func TestPidIsTheCommand(t *testing.T) {
	dir := testenv.TempDir(t)
	file := filepath.Join(dir, "pids")
	spec := helperSpec(t, "spawn", file, "sleep")
	var j Jail
	p, err := j.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Wait(context.Background())
	defer p.Kill()
	pids := readPids(t, file)
	if pids[0] != uint32(p.Pid()) {
		t.Fatalf("Pid() = %d, the command says it is %d", p.Pid(), pids[0])
	}
}

// A start that fails after the process was created never lets it run a
// single instruction: it was created suspended and is killed so.
func TestFailedStartNeverRuns(t *testing.T) {
	mark := filepath.Join(testenv.TempDir(t), "mark")
	var h windows.Handle
	testHookLaunched = func(pid int) (err error) {
		h, err = windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
		if err != nil {
			return err
		}
		return errors.New("injected failure")
	}
	defer func() { testHookLaunched = nil }()
	var j Jail
	p, err := j.Start(context.Background(), helperSpec(t, "mark", mark))
	var se *StartError
	if p != nil || !errors.As(err, &se) || se.Code != 125 {
		t.Fatalf("Start = %v, %v; want a StartError 125", p, err)
	}
	if h == 0 {
		t.Fatal("the hook did not see the process")
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, uint32(bound.Milliseconds())); err != nil || ev != windows.WAIT_OBJECT_0 {
		t.Fatalf("the aborted process is still there (%v)", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the aborted process ran: it wrote its mark")
	}
}

// After Wait has released the job, Kill must not touch its handle (the
// value may already name another object).
func TestKillAfterWait(t *testing.T) {
	var j Jail
	p, err := j.Start(context.Background(), helperSpec(t, "exit", "0"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if _, err := p.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill after Wait = %v, want nil", err)
	}
}

func TestStartCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var j Jail
	p, err := j.Start(ctx, helperSpec(t, "exit", "0"))
	if p != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with a cancelled context = %v, %v", p, err)
	}
}
