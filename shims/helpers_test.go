package shims

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// testPolicy allows git status, escalates git push, denies a forced push.
const testPolicy = `version: 1
shell:
  allow: ["git status **"]
  escalate: ["git push **"]
  deny: [{pattern: "git push --force **", reason: "no forced pushes"}]
`

// fakeGit is the "real" git of the tests: it says how it was called.
const fakeGit = `#!/bin/sh
case "$1" in
status) echo "REAL git status [$2]" ;;
push)
  case "$2" in
  cat) cat ;;
  code) echo "pushed (exit $3)"; echo "remote: from stderr" >&2; exit "$3" ;;
  *) echo "pushed $*" ;;
  esac ;;
*) echo "REAL git $*" ;;
esac
`

// fixture is a project with a bus, a shim directory linking this test
// binary as git, and a directory holding the fake real git.
type fixture struct {
	t       *testing.T
	f       folder.Folder
	shimDir string
	realDir string
	q       *queue.Queue
}

func newFixture(t *testing.T, policyYAML string) *fixture {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "project")
	f := folder.Folder{Root: root}
	for _, d := range f.Subdirs() {
		mkdir(t, d)
	}
	fx := &fixture{t: t, f: f, shimDir: f.Shims(), realDir: filepath.Join(base, "real")}
	mkdir(t, fx.realDir)
	writeExec(t, filepath.Join(fx.realDir, "git"), fakeGit)
	if policyYAML != "" {
		p, err := policy.Parse("policy.yaml", []byte(policyYAML))
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteCache(fx.shimDir, p); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := Install(fx.shimDir, exe, []string{"git", "curl"}); err != nil {
		t.Fatal(err)
	}
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	if fx.q, err = queue.Open(f, queue.WithKey(st.Key)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fx.q.Close() })
	// The broker's PATH comes from the approver's (EnvPass has PATH).
	t.Setenv("PATH", fx.realDir+":"+os.Getenv("PATH"))
	return fx
}

func mkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeExec(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// shim is the command running the git shim with path as PATH and extra
// environment.
func (fx *fixture) shim(path string, extra []string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(fx.shimDir, "git"), args...)
	cmd.Args[0] = "git"
	cmd.Dir = fx.f.Root
	env := []string{"PATH=" + path, "HOME=" + os.Getenv("HOME"), "XDG_STATE_HOME=" + os.Getenv("XDG_STATE_HOME")}
	cmd.Env = append(env, extra...)
	return cmd
}

// run runs cmd (bounded) and returns stdout, stderr and the exit code.
func run(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	return start(t, cmd)()
}

// start starts cmd; the returned function waits for it (bounded) and
// returns stdout, stderr and the exit code.
func start(t *testing.T, cmd *exec.Cmd) func() (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if cmd.Stdin == nil {
		cmd.Stdin = strings.NewReader("")
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() (string, string, int) {
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		defer timer.Stop()
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Error(err)
		}
		return out.String(), errb.String(), code
	}
}

// pending waits (bounded) for the one pending request.
func (fx *fixture) pending() *queue.Request {
	fx.t.Helper()
	for i := 0; i < 500; i++ {
		reqs, _ := fx.q.Pending()
		if len(reqs) == 1 {
			return reqs[0]
		}
		if len(reqs) > 1 {
			fx.t.Fatalf("%d pending requests, want 1", len(reqs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	fx.t.Fatal("no request became pending")
	return nil
}

// approver is an in-process human deciding on fx's folder; its broker
// inherits PATH (so that it finds the fake git).
func (fx *fixture) approver() *approver.Approver {
	fx.t.Helper()
	st, err := userstate.Open(true)
	if err != nil {
		fx.t.Fatal(err)
	}
	lg, err := audit.Open(fx.f, st)
	if err != nil {
		fx.t.Fatal(err)
	}
	fx.t.Cleanup(func() { lg.Close() })
	ap, err := approver.New(approver.Options{Queue: fx.q, Audit: lg,
		Identity: approver.Identity{User: "tester@host", Surface: approver.SurfaceCLI}, EnvPass: []string{"PATH", "HOME"}})
	if err != nil {
		fx.t.Fatal(err)
	}
	return ap
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// approverShown approves what the human saw: the request's hash.
func approverShown(req *queue.Request) approver.ApproveOptions {
	return approver.ApproveOptions{ShownHash: req.Hash}
}
