package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// Three real Claude Code agents, each against its own fake model with its
// own script, run at once under `sandbox agents spawn`, each in its own
// worktree and jail. One `sandbox watch` started in the repository with no
// folder named, driven by this test as a human would drive it through a
// pipe, approves alice's and bob's escalations and denies carol's, by the
// agent the watch names (the folder the request arrived in). Each model
// receives its own output, never another's.
func TestThreeClaudeAgentsOneInbox(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"data.txt": "secret\n"})
	names := []string{"alice", "bob", "carol"}
	models := map[string]*fakemodel.Anthropic{}
	addrs := map[string]string{}
	for _, n := range names {
		models[n] = startModel(t,
			bashCall("echo allowed-from-"+n+"; pwd", "say who"),
			bashCall("chown --reference=data.txt data.txt && echo ESCALATED-"+n, "keep data.txt's owner ("+n+")"),
			fakemodel.Reply{Text: "done-" + n})
		addrs[n] = forward(t, "127.0.0.2", strings.TrimPrefix(models[n].URL, "http://"))
	}
	allow := ""
	for _, n := range names {
		allow += "    - \"" + addrs[n] + "\"\n"
	}
	e.editPolicy(t, dir, "network:\n  allow:\n", "network:\n  allow:\n"+allow)
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "the project, its hooks and policy")

	// Claude Code's own git calls in the repository's folder (outside
	// each agent's project) escalate too: not what this test is about,
	// and a human would deny them
	w := startWatch(t, e, dir, func(agent, block string) (string, bool) {
		switch {
		case !strings.Contains(block, "ESCALATED-"):
			return "d not part of the test", false
		case agent == "carol":
			return "d not carol's job", true
		}
		return "a", true
	})
	path := filepath.Dir(client(t, "claude")) + ":" + os.Getenv("PATH")
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(sandboxBin, "agents", "spawn", n, "--agent", "claude", "--headless", "--wait",
				"--task", "do the task", "--dir", dir)
			cmd.Dir = dir
			cmd.Env = e.vars("ANTHROPIC_BASE_URL=http://"+addrs[n], "ANTHROPIC_API_KEY=dummy",
				"CLAUDE_CONFIG_DIR="+t.TempDir(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1", "PATH="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("spawn %s: %v\n%s", n, err, out)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		for _, n := range names {
			logs, _ := e.sandbox("agents", "logs", n, "--dir", dir)
			t.Logf("%s's log:\n%s", n, logs)
		}
	}

	for _, n := range names {
		reqs := models[n].MainRequests()
		first := resultOf(t, reqs, 1)
		mustContain(t, n+"'s allowed call", first.Content, "allowed-from-"+n, filepath.Join(".sandbox", "worktrees", n))
		second := resultOf(t, reqs, 2)
		if n == "carol" {
			mustContain(t, "carol's denied call", second.Content, "not carol's job")
			if strings.Contains(second.Content, "ESCALATED-carol") {
				t.Errorf("carol's denied call ran:\n%s", second.Content)
			}
		} else {
			mustContain(t, n+"'s approved call", second.Content, "sandbox: APPROVED and EXECUTED", "ESCALATED-"+n)
		}
		for _, other := range names {
			if other == n {
				continue
			}
			for _, r := range []fakemodel.ToolResult{first, second} {
				if strings.Contains(r.Content, "-"+other) || strings.Contains(r.Content, "/"+other) {
					t.Errorf("%s's model received %s's output:\n%s", n, other, r.Content)
				}
			}
		}
	}
	decided := w.stop()
	for _, n := range names {
		if decided[n] != 1 {
			t.Errorf("the watch decided %d requests of %s, want 1 (all: %v)\n%s", decided[n], n, decided, w.screen())
		}
	}
	var list []struct {
		Name, State, Branch string
		Exit                *int
	}
	out := e.mustSandbox("agents", "list", "--json", "--dir", dir)
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("agents list: %v\n%s", err, out)
	}
	for _, a := range list {
		if a.State != "done" || a.Branch != "sandbox/"+a.Name || a.Exit == nil || *a.Exit != 0 {
			t.Errorf("agent %+v, want done on its branch with exit 0", a)
		}
	}
}

// watchDriver is `sandbox watch --plain` in a repository, answered line by
// line as a human at a dumb terminal would: each request it shows is
// decided by the agent it names.
type watchDriver struct {
	cmd  *exec.Cmd
	keys io.WriteCloser
	// decide answers a request shown as block, of agent, and says
	// whether it counts as one of the test's
	decide func(agent, block string) (answer string, counts bool)

	mu      sync.Mutex
	out     strings.Builder
	decided map[string]int
	done    chan struct{}
	once    sync.Once
}

func startWatch(t *testing.T, e *env, dir string, decide func(agent, block string) (string, bool)) *watchDriver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	cmd := exec.CommandContext(ctx, sandboxBin, "watch", "--plain")
	cmd.Dir = dir
	cmd.Env = e.vars()
	keys, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	w := &watchDriver{cmd: cmd, keys: keys, decide: decide, decided: map[string]int{}, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.stop()
		cancel()
	})
	go w.read(out)
	return w
}

// read follows the watch's output: a request's block starts with
// "── request ID" and names its agent on a line "  agent    NAME"; the
// decision is typed once the block's prompt appears.
func (w *watchDriver) read(r io.Reader) {
	defer close(w.done)
	sc := bufio.NewScanner(r)
	agent := ""
	var block strings.Builder
	for sc.Scan() {
		line := sc.Text()
		w.mu.Lock()
		w.out.WriteString(line + "\n")
		w.mu.Unlock()
		block.WriteString(line + "\n")
		switch {
		case strings.HasPrefix(line, "── request "):
			agent = ""
			block.Reset()
			block.WriteString(line + "\n")
		case strings.HasPrefix(line, "  agent ") && agent == "":
			if f := strings.Fields(line); len(f) >= 2 {
				agent = f[1]
			}
		case strings.Contains(line, "[a] approve once") && agent != "" && agent != "-":
			answer, counts := w.decide(agent, block.String())
			if counts {
				w.mu.Lock()
				w.decided[agent]++
				w.mu.Unlock()
			}
			fmt.Fprintln(w.keys, answer)
			agent = "-"
		}
	}
}

// stop ends the watch and returns how many requests of each agent it
// decided.
func (w *watchDriver) stop() map[string]int {
	w.once.Do(func() {
		fmt.Fprintln(w.keys, "q")
		w.keys.Close()
		select {
		case <-w.done:
		case <-time.After(30 * time.Second):
			w.cmd.Process.Kill()
			<-w.done
		}
		w.cmd.Wait()
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for k, v := range w.decided {
		out[k] = v
	}
	return out
}

func (w *watchDriver) screen() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
