//go:build linux

package shims_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
)

var (
	buildOnce  sync.Once
	sandboxBin string
	buildErr   error
)

// sandboxBinary builds cmd/sandbox once for the run-mode tests.
func sandboxBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sandbox-shims-test-")
		if err != nil {
			buildErr = err
			return
		}
		sandboxBin = filepath.Join(dir, "sandbox")
		out, err := exec.Command("go", "build", "-o", sandboxBin, "github.com/sandbox-dev/sandbox/cmd/sandbox").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return sandboxBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// requireJail skips (fails in CI) unless every jail layer is here.
func requireJail(t *testing.T) {
	t.Helper()
	testenv.RequireRoot(t)
	r := launcher.Probe()
	for _, l := range []launcher.Layer{launcher.LayerLandlock, launcher.LayerSeccomp, launcher.LayerMount,
		launcher.LayerCgroup, launcher.LayerNetwork, launcher.LayerPid, launcher.LayerNoNewPrivs} {
		if !r.OK(l) {
			testenv.Skip(t, "jail layer "+string(l)+" is not available: "+r.Layer(l).Detail)
		}
	}
}

// runProject is a git project initialised with `sandbox init`, its
// policy replaced by policyYAML and accepted.
type runProject struct {
	t    *testing.T
	bin  string
	env  []string
	f    folder.Folder
	q    *queue.Queue
	bare string // a bare repository outside everything the jail may write
}

func newRunProject(t *testing.T, policyYAML string) *runProject {
	t.Helper()
	requireJail(t)
	p := &runProject{t: t, bin: sandboxBinary(t)}
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "project")
	mkdir(t, root)
	p.f = folder.Folder{Root: root}
	home, _ := os.UserHomeDir()
	if p.bare, err = os.MkdirTemp(home, ".sandbox-test-bare-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(p.bare) })
	p.env = append(os.Environ(), "XDG_STATE_HOME="+state, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	p.git("init", "-q", "--bare", p.bare)
	p.git("-C", root, "init", "-q", "-b", "work")
	writeExec(t, filepath.Join(root, "README"), "hello\n")
	p.git("-C", root, "add", "README")
	p.git("-C", root, "commit", "-q", "-m", "first")
	p.git("-C", root, "remote", "add", "origin", p.bare)
	p.sandbox("init", root)
	if policyYAML != "" {
		if err := os.WriteFile(p.f.Policy(), []byte(policyYAML), 0o644); err != nil {
			t.Fatal(err)
		}
		p.sandbox("policy", "accept", "--yes", "--dir", root)
	}
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	if p.q, err = queue.Open(p.f, queue.WithKey(st.Key)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.q.Close() })
	return p
}

func (p *runProject) git(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *runProject) sandbox(args ...string) string {
	p.t.Helper()
	cmd := exec.Command(p.bin, args...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("sandbox %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// run runs `sandbox run [flags] -- argv` in the project (bounded) and
// returns its combined output and exit code.
func (p *runProject) run(flags []string, argv ...string) (string, int) {
	p.t.Helper()
	return p.runEnv(nil, flags, argv...)
}

// runEnv is run with extra environment variables.
func (p *runProject) runEnv(env, flags []string, argv ...string) (string, int) {
	p.t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, p.bin, append(append(append([]string{"run"}, flags...), "--"), argv...)...)
	cmd.Dir, cmd.Env = p.f.Root, append(append([]string{}, p.env...), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatalf("sandbox run: %v\n%s", err, out.String())
	}
	return out.String(), code
}

// verdict is a scripted human's answer: approve, or deny with reason.
type verdict struct {
	approve bool
	reason  string
}

// humanLoop is a scripted human on the project's queue until the test
// ends: decide answers each arriving request; seen lists them in order.
type humanLoop struct {
	mu   sync.Mutex
	seen []*queue.Request
}

func (p *runProject) human(decide func(*queue.Request) verdict) *humanLoop {
	p.t.Helper()
	st, err := userstate.Open(true)
	if err != nil {
		p.t.Fatal(err)
	}
	lg, err := audit.Open(p.f, st)
	if err != nil {
		p.t.Fatal(err)
	}
	ap, err := approver.New(approver.Options{Queue: p.q, Audit: lg,
		Identity: approver.Identity{User: "human@test", Surface: approver.SurfaceWatch}})
	if err != nil {
		p.t.Fatal(err)
	}
	h := &humanLoop{}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		answered := map[string]bool{}
		for c.Err() == nil {
			reqs, _ := p.q.Pending()
			for _, r := range reqs {
				if answered[r.ID] {
					continue
				}
				answered[r.ID] = true
				h.mu.Lock()
				h.seen = append(h.seen, r)
				h.mu.Unlock()
				if v := decide(r); v.approve {
					ap.Approve(c, r.ID, approver.ApproveOptions{ShownHash: r.Hash})
				} else {
					ap.Deny(c, r.ID, v.reason)
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	p.t.Cleanup(func() { cancel(); <-done; lg.Close() })
	return h
}

func (h *humanLoop) requests() []*queue.Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*queue.Request(nil), h.seen...)
}

func mustContain(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s lacks %q:\n%s", what, s, text)
		}
	}
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
