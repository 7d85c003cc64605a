package serve_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// TestDashboardInABrowser runs `sandbox serve` and drives its page in
// Debian's chromium with playwright-core (testdata/dashboard.mjs): the
// page sees requests appear live, says "not authorised" when opened with
// an address already used, approves one with the keyboard and moves on
// to the next pending request, shows a failed command with a failure
// badge, audit details as fields, fits a 390 px phone screen, and its
// screenshots land in test-artifacts/.
func TestDashboardInABrowser(t *testing.T) {
	node, modules := browserDeps(t)
	root := repoRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	bin := buildSandbox(t, ctx, root, tmp)
	proj := filepath.Join(tmp, "project")
	if err := os.MkdirAll(filepath.Join(proj, ".sandbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	url := startServe(t, bin, proj)

	shot := filepath.Join(tmp, "dashboard.png")
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "connector", "serve", "testdata", "dashboard.mjs"), url, shot)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stderr = testWriter(t, "node")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	steps := bufio.NewScanner(out)
	expect(t, steps, "READY")
	q := openQueue(t, proj)
	first := submit(t, q, proj, "echo hello from the dashboard; echo '\x1b[31mred\x1b[0m' # \u202eevil", "to show the page works")
	second := submit(t, q, proj, "git push origin main", "publish the branch")
	victim := filepath.Join(proj, "cache-x")
	os.Mkdir(victim, 0o755)
	var long strings.Builder
	for i := 1; i <= 63; i++ {
		if i == 62 {
			fmt.Fprintf(&long, "rm -rf %s\n", victim)
		} else {
			fmt.Fprintf(&long, "echo line-%02d\n", i)
		}
	}
	third := submit(t, q, proj, strings.TrimSpace(long.String()), "clean the cache")
	for _, s := range []string{"SEEN", "UNAUTHORISED", "GUARDED", "APPROVED", "SHOT", "DENIED", "PAGED", "AUDIT", "OFFER-READY"} {
		expect(t, steps, s)
	}
	for _, name := range []string{"f1", "f2", "f3"} {
		submit(t, q, proj, "printf "+name, "the same shape three times")
	}
	for _, s := range []string{"OFFERED", "FAIL-READY"} {
		expect(t, steps, s)
	}
	failing := submit(t, q, proj, "echo failing; exit 3", "a command that fails")
	for _, s := range []string{"FAILED", "PHONE", "DONE"} {
		expect(t, steps, s)
	}
	if out, err := exec.Command(bin, "remembered", "list", "--dir", proj).CombinedOutput(); err != nil || !strings.Contains(string(out), "printf **") {
		t.Errorf("the offer taken in the page is not remembered: %v\n%s", err, out)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v", err)
	}
	res, err := q.Result(first)
	if err != nil || res.Decision != queue.Approved || res.Approver.Surface != "serve" || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("result %+v, %v", res, err)
	}
	res, err = q.Result(second)
	if err != nil || res.Decision != queue.Denied || res.Reason != "not on main, open a pull request" {
		t.Fatalf("second result %+v, %v", res, err)
	}
	res, err = q.Result(third)
	if err != nil || res.Decision != queue.Approved {
		t.Fatalf("third result %+v, %v", res, err)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Fatal("line 62 of the long script did not run")
	}
	keepScreenshot(t, root, strings.TrimSuffix(shot, ".png")+"-long.png", "serve-dashboard-long.png")
	keepScreenshot(t, root, shot, "serve-dashboard.png")
	keepScreenshot(t, root, strings.TrimSuffix(shot, ".png")+"-deny.png", "serve-dashboard-deny.png")
	for _, name := range []string{"unauthorised", "failed", "phone"} {
		keepScreenshot(t, root, strings.TrimSuffix(shot, ".png")+"-"+name+".png", "serve-dashboard-"+name+".png")
	}
	if res, err := q.Result(failing); err != nil || res.ExitCode == nil || *res.ExitCode != 3 {
		t.Errorf("the failing command's result: %+v, %v", res, err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s", dir)
	}
	return dir
}

func buildSandbox(t *testing.T, ctx context.Context, root, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "sandbox")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/sandbox")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServe starts `sandbox serve proj` and returns the address from
// its first line; it is stopped with SIGTERM at the end, and must then
// remove its token file.
func startServe(t *testing.T, bin, proj string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", proj)
	cmd.Stderr = testWriter(t, "serve")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		stopped := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		defer stopped.Stop()
		if err := cmd.Wait(); err != nil {
			t.Errorf("sandbox serve: %v", err)
		}
		tokens, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "sandbox", "serve", "*.token"))
		if len(tokens) != 0 {
			t.Errorf("token files left: %v", tokens)
		}
	})
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(l)
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		if !strings.HasPrefix(l, "http://127.0.0.1:") || !strings.Contains(l, "/#code=") {
			t.Fatalf("first line %q", l)
		}
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("sandbox serve printed no address")
	}
	return ""
}

func openQueue(t *testing.T, proj string) *queue.Queue {
	t.Helper()
	f, err := folder.New(proj)
	if err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func submit(t *testing.T, q *queue.Queue, proj, script, why string) string {
	t.Helper()
	req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script},
		Cwd: proj, Source: queue.SourceClaudeHook, Agent: "claude", Session: "9f1c2e7a-" + queue.NewID()[:8],
		Justification: why, PolicyReasons: []string{"shell " + strings.Fields(script)[0] + ": no rule allows this; anything unknown needs a human"}}
	id, _, err := q.Submit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // distinct, ordered ids
	return id
}

func expect(t *testing.T, sc *bufio.Scanner, want string) {
	t.Helper()
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == want {
			return
		}
		t.Logf("node: %s", sc.Text())
	}
	t.Fatalf("node ended before %s", want)
}

// keepScreenshot copies the screenshot to test-artifacts/ (ignored by
// git) and /tmp.
func keepScreenshot(t *testing.T, root, shot, name string) {
	t.Helper()
	data, err := os.ReadFile(shot)
	if err != nil || len(data) < 1000 {
		t.Fatalf("screenshot: %v (%d bytes)", err, len(data))
	}
	dir := filepath.Join(root, "test-artifacts")
	for _, dst := range []string{filepath.Join(dir, name), filepath.Join(os.TempDir(), name)} {
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Errorf("keeping the screenshot: %v", err)
		}
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

type logWriter struct {
	t      *testing.T
	prefix string
}

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s: %s", w.prefix, strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func testWriter(t *testing.T, prefix string) io.Writer { return logWriter{t, prefix} }
