package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// sandboxBin is the sandbox binary built once for all tests.
var sandboxBin string

// noState is this test process's XDG_STATE_HOME: a path no process can
// make a state in. Every process a test starts gets its test's own state
// through its environment (env.vars), never through this process's, so
// the tests can run in parallel; one that inherited this process's
// environment fails instead of reading the real user's state.
const noState = "/dev/null/no-per-user-state-in-tests"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sandbox-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sandboxBin = filepath.Join(dir, "sandbox")
	build := exec.Command("go", "build", "-o", sandboxBin, "github.com/sandbox-dev/sandbox/cmd/sandbox")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building sandbox:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	if runtime.GOOS != "windows" { // LOCALAPPDATA there, and no e2e run
		os.Setenv("XDG_STATE_HOME", noState)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the module root (this file is connector/e2e/main_test.go).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// client finds an agent CLI on PATH or in hack/clients (npm ci --prefix
// hack/clients), skipping (failing in CI) when it is missing.
func client(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	p := filepath.Join(repoRoot(), "hack", "clients", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		testenv.Skip(t, name+" is not installed (npm ci --prefix hack/clients)")
	}
	return p
}

// env is the environment of every process a test starts: a private
// per-user state dir, the egress trap as proxy, and the variables the test
// set (setenv).
type env struct {
	t     *testing.T
	state string
	trap  *fakemodel.Trap
	set   []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	state := t.TempDir()
	trap, err := fakemodel.StartTrap()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, state: state, trap: trap}
	t.Cleanup(func() {
		trap.Close()
		if hits := trap.Hits(); len(hits) > 0 {
			t.Errorf("attempted egress: %s", strings.Join(hits, ", "))
		}
	})
	return e
}

// setenv sets key for every process the test starts from now on (what
// t.Setenv would do, which a parallel test may not call). Call it before
// the test starts anything that runs on its own (an approver).
func (e *env) setenv(key, value string) { e.set = append(e.set, key+"="+value) }

// vars returns the base environment plus the test's variables and extra,
// with the test's per-user state and the proxy trap set.
func (e *env) vars(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "XDG_STATE_HOME", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
			"CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "XDG_STATE_HOME="+e.state, "HTTPS_PROXY="+e.trap.URL, "HTTP_PROXY="+e.trap.URL,
		"https_proxy="+e.trap.URL, "http_proxy="+e.trap.URL, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	out = append(out, e.set...) // the last of a key's entries is the one a process gets
	return append(out, extra...)
}

// sandbox runs the sandbox binary and returns its combined output.
func (e *env) sandbox(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sandboxBin, args...)
	cmd.Env = e.vars()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustSandbox is sandbox that fails the test on error.
func (e *env) mustSandbox(args ...string) string {
	e.t.Helper()
	out, err := e.sandbox(args...)
	if err != nil {
		e.t.Fatalf("sandbox %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// project makes a fresh project folder (symlinks resolved) and runs
// `sandbox init DIR --AGENT` in it.
func (e *env) project(agent string, files map[string]string) string {
	e.t.Helper()
	dir, err := filepath.EvalSymlinks(e.t.TempDir())
	if err != nil {
		e.t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	e.mustSandbox("init", dir, "--"+agent)
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}
