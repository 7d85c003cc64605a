package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

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

// transcript collects a process's output and waits for text in it.
type transcript struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{}
}

func newTranscript(r io.Reader) *transcript {
	tr := &transcript{ch: make(chan struct{}, 1)}
	go func() {
		br := bufio.NewReader(r)
		for {
			b, err := br.ReadByte()
			if err != nil {
				return
			}
			tr.mu.Lock()
			tr.buf.WriteByte(b)
			tr.mu.Unlock()
			select {
			case tr.ch <- struct{}{}:
			default:
			}
		}
	}()
	return tr
}

func (tr *transcript) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.buf.String()
}

// waitFor waits (bounded) until the transcript holds want n times.
func (tr *transcript) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for strings.Count(tr.String(), want) < n {
		select {
		case <-tr.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %q (x%d) in:\n%s", want, n, tr.String())
		}
	}
}

// started runs cmd with its output collected.
func started(t *testing.T, cmd *exec.Cmd) (*transcript, *transcript) {
	t.Helper()
	out, _ := cmd.StdoutPipe()
	errp, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return newTranscript(out), newTranscript(errp)
}

// exitOf waits for cmd and returns its exit code.
func exitOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v did not exit", cmd.Args)
	}
	return cmd.ProcessState.ExitCode()
}
