package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
)

// The ways a test runs sandbox, and the projects it runs it in. In-process
// (runCLI: the cobra tree, in this process's environment), as a real
// process of this test binary (sandboxCmd, run, sandboxLine: the test
// binary re-executed as the sandbox command, see TestApproverMain), or as
// the real binary built once (sandboxBinary), which run mode needs: the
// jail's init re-executes it. A project from project or jailProject keeps
// its per-user state out of the test's environment (stateEnv hands it to
// the processes), so the tests that use them can run in parallel.

// runCLI runs `sandbox ARGS` in this process (the cobra tree), with this
// process's environment: a test that uses it cannot run in parallel with
// one that sets the environment.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errw)
	err := root.Execute()
	if err != nil {
		errw.WriteString(err.Error())
	}
	return exitCode(err), out.String(), errw.String()
}

// The test binary runs as the sandbox command itself (a real process)
// when SANDBOX_APPROVER_MAIN=1: `exe -test.run=^TestApproverMain$ -- ARGS`.
const approverMainVar = "SANDBOX_APPROVER_MAIN"

func TestApproverMain(t *testing.T) {
	if os.Getenv(approverMainVar) != "1" {
		t.Skip("helper process only")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(execute(append([]string{"sandbox"}, args...)))
}

// sandboxCmd is `sandbox ARGS...` as a real process in dir.
func sandboxCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^TestApproverMain$", "--"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), approverMainVar+"=1"), stateEnv(dir)...)
	return cmd
}

// sandboxLine is the shell command line of sandboxCmd in the project at
// root, for tmux.
func sandboxLine(t *testing.T, root string, args ...string) string {
	t.Helper()
	exe, _ := os.Executable()
	words := append(append([]string{"env", approverMainVar + "=1"}, stateEnv(root)...),
		exe, "-test.run=^TestApproverMain$", "--")
	var q []string
	for _, w := range append(words, args...) {
		q = append(q, display.QuoteArg(w))
	}
	return strings.Join(q, " ")
}

// project is a folder with a .sandbox/ bus and, with accept, the default
// policy written and accepted. Its per-user state is known to stateOf and
// stateEnv only: nothing in the test's environment names it, so a test
// that drives sandbox processes in it can run in parallel.
func project(t *testing.T, accept bool) string {
	t.Helper()
	f, st := testenv.Project(t)
	states.Store(f.Root, st)
	t.Cleanup(func() { states.Delete(f.Root) })
	if accept {
		data := policy.DefaultYAML()
		os.WriteFile(f.Policy(), data, 0o644)
		if err := store.Accept(f, st, data); err != nil {
			t.Fatal(err)
		}
	}
	return f.Root
}

// states maps the root of each test project that project made to its
// per-user state.
var states sync.Map // string -> *userstate.State

// stateOf is the per-user state of the test project holding dir, or nil.
func stateOf(dir string) *userstate.State {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, ok := states.Load(d); ok {
			return st.(*userstate.State)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// projectState is the per-user state of the test project holding dir, or
// else the one the test's environment names (set by t.Setenv).
func projectState(t *testing.T, dir string) *userstate.State {
	t.Helper()
	if st := stateOf(dir); st != nil {
		return st
	}
	st, err := userstate.Open(false)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// stateEnv is the environment that makes a sandbox process in dir find the
// per-user state of the test project holding dir; none for a directory in
// no such project (the test's own environment then decides).
func stateEnv(dir string) []string {
	if st := stateOf(dir); st != nil {
		return testenv.StateEnv(st)
	}
	return nil
}

// run runs `sandbox ARGS` to completion.
func run(t *testing.T, root string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := sandboxCmd(t, root, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// The run tests go through a built sandbox binary: the jail's init is the
// binary re-executing itself, and signals must reach a real supervisor.
var built struct {
	once sync.Once
	path string
	err  error
}

func sandboxBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "sandbox-run-test-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "sandbox")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = err
			built.path = string(out)
		}
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.path)
	}
	return built.path
}

func requireRunJail(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("run mode has a jail on Linux only")
	}
	testenv.RequireRoot(t)
	r := launcher.Probe()
	for _, lr := range r.Layers {
		if lr.Status != launcher.StatusOK {
			testenv.Skip(t, "jail layer "+string(lr.Layer)+": "+lr.Detail)
		}
	}
}

// jailProject is a project with a bus and a private per-user state dir
// that only the environment stateEnv gives names, so that the test may run
// in parallel with others; runProject points the test's own at it.
func jailProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".sandbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := userstate.OpenDir(filepath.Join(t.TempDir(), "state", "sandbox"), true)
	if err != nil {
		t.Fatal(err)
	}
	states.Store(root, st)
	t.Cleanup(func() { states.Delete(root) })
	return root
}

// runProject is a project with a bus, and a private per-user state dir.
func runProject(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".sandbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}
