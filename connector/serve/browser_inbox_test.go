package serve_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/agents"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// The page of `sandbox serve` without a folder named, in a repository with
// two agents (worktree folders and registry records made directly): the
// Agents panel, requests tagged by the folder they arrived in, and a batch
// approval that runs the same request once in each agent's folder.
func TestDashboardInboxInABrowser(t *testing.T) {
	node, modules := browserDeps(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := repoRoot(t)
	tmp := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildSandbox(t, ctx, root, tmp)
	main := acceptedFolder(t, st, filepath.Join(tmp, "main"))
	reg, err := agents.Open(main, st.Dir)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, n := range []string{"alice", "bob"} {
		f := acceptedFolder(t, st, filepath.Join(main.Worktrees(), n))
		dirs[n] = f.Root
		if err := reg.Put(agents.Record{Name: n, Agent: "command", Branch: "sandbox/" + n, Worktree: f.Root, State: agents.Running}); err != nil {
			t.Fatal(err)
		}
		lock, err := reg.Lock(n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(lock.Release)
	}
	url := startServeIn(t, bin, main.Root)

	shot := filepath.Join(tmp, "inbox.png")
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "connector", "serve", "testdata", "inbox.mjs"), url, shot)
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
	qa, qb := openQueue(t, dirs["alice"]), openQueue(t, dirs["bob"])
	ida := submit(t, qa, dirs["alice"], "pwd", "where am I")
	idb := submit(t, qb, dirs["bob"], "pwd", "where am I")
	liar := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: "echo i am bob"},
		Cwd: dirs["alice"], Source: queue.SourceCLI, Agent: "bob", Session: "s-liar"}
	if _, _, err := qa.Submit(context.Background(), liar); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"TAGGED", "BATCHED", "DONE"} {
		expect(t, steps, s)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v", err)
	}
	for id, q := range map[string]*queue.Queue{ida: qa, idb: qb} {
		res, err := q.Result(id)
		if err != nil || res.Decision != queue.Approved || res.Stdout != q.Folder().Root+"\n" {
			t.Errorf("%s: %+v, %v", id, res, err)
		}
	}
	if _, err := qa.Result(liar.ID); err == nil {
		t.Error("the request outside the batch was decided")
	}
	keepScreenshot(t, root, shot, "serve-dashboard-inbox.png")
}

// browserDeps is node and the playwright-core modules, or a skip.
func browserDeps(t *testing.T) (node, modules string) {
	t.Helper()
	return testenv.RequireBrowser(t, repoRoot(t))
}

// acceptedFolder makes dir a folder whose default policy is accepted.
func acceptedFolder(t *testing.T, st *userstate.State, dir string) folder.Folder {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := testenv.Folder(t, dir)
	data := policy.DefaultYAML()
	os.WriteFile(f.Policy(), data, 0o644)
	if err := store.Accept(f, st, data); err != nil {
		t.Fatal(err)
	}
	return f
}

// startServeIn starts `sandbox serve` without a folder named, in dir.
func startServeIn(t *testing.T, bin, dir string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Dir = dir
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
		cmd.Wait()
	})
	br := bufio.NewReader(out)
	l, err := br.ReadString('\n')
	if err != nil || !strings.Contains(l, "/#code=") {
		t.Fatalf("first line %q: %v", l, err)
	}
	go io.Copy(io.Discard, br)
	return strings.TrimSpace(l)
}
