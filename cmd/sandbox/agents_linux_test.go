//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	fleet "github.com/sandbox-dev/sandbox/agents"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// agentsRepo is a git repository with a sandbox folder whose accepted
// policy has an agents: setup command, a gitignored .env and porthelper
// (this test binary) listed in .worktreeinclude, and the environment the
// built sandbox binary runs with there.
type agentsRepo struct {
	t     *testing.T
	root  string
	env   []string
	head  string
	state string // the per-user state dir
}

func newAgentsRepo(t *testing.T, setup string) *agentsRepo {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := userstate.OpenDir(filepath.Join(t.TempDir(), "state", "sandbox"), true)
	if err != nil {
		t.Fatal(err)
	}
	r := &agentsRepo{t: t, root: root, env: append(os.Environ(), testenv.StateEnv(st)...), state: st.Dir}
	r.env = append(r.env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t",
		"GIT_COMMITTER_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_EMAIL=t@example.com")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"a.txt": "committed\n", ".gitignore": ".env\nporthelper\n", ".env": "SECRET=from-main\n",
		".worktreeinclude": ".env\nporthelper\n", "porthelper": string(helper),
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.git("init", "-q")
	r.git("add", "a.txt", ".gitignore", ".worktreeinclude")
	r.git("commit", "-qm", "init")
	r.head = strings.TrimSpace(r.git("rev-parse", "HEAD"))
	f := folder.Folder{Root: root}
	if err := f.Create(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteGitIgnore(); err != nil {
		t.Fatal(err)
	}
	data := append(policy.DefaultYAML(), []byte("agents:\n  setup: "+strings.ReplaceAll(setup, "MAIN", root)+"\n")...)
	if err := os.WriteFile(f.Policy(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := store.Accept(f, st, data); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *agentsRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.root, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r *agentsRepo) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(sandboxBinary(r.t), args...)
	cmd.Dir, cmd.Env = r.root, r.env
	return cmd
}

// sandbox runs the built binary to completion.
func (r *agentsRepo) sandbox(args ...string) (code int, stdout, stderr string) {
	r.t.Helper()
	cmd := r.cmd(args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func (r *agentsRepo) mustSandbox(args ...string) string {
	r.t.Helper()
	code, out, errs := r.sandbox(args...)
	if code != 0 {
		r.t.Fatalf("sandbox %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

func (r *agentsRepo) list() map[string]fleet.Status {
	r.t.Helper()
	var list []fleet.Status
	if err := json.Unmarshal([]byte(r.mustSandbox("agents", "list", "--json")), &list); err != nil {
		r.t.Fatal(err)
	}
	m := map[string]fleet.Status{}
	for _, s := range list {
		m[s.Name] = s
	}
	return m
}

func (r *agentsRepo) wt(name string) string {
	return filepath.Join(r.root, ".sandbox", "worktrees", name)
}

func (r *agentsRepo) fileIs(path, want string) func() bool {
	return func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.TrimSpace(string(b)) == want
	}
}

// stopAll stops what a failed test left running.
func (r *agentsRepo) stopAll() {
	for name, s := range r.list() {
		if !s.State.Final() {
			r.sandbox("agents", "stop", name)
		}
	}
}

// serveAndGet is an agent that serves its name on 127.0.0.1:3000, reads
// what is served there into got.txt, and stays.
func serveAndGet(name string) string {
	return "./porthelper serve " + name + " & ./porthelper get > got.tmp && mv got.tmp got.txt; sleep 300"
}

func TestAgentsFleet(t *testing.T) {
	requireRunJail(t)
	// The setup runs in the agent's jail: it has the jail's marker, and
	// what it writes outside its worktree (MAIN, /etc) never reaches the host.
	etc := fmt.Sprintf("/etc/sandbox-agents-escape-%d", os.Getpid())
	r := newAgentsRepo(t, `"echo jail=$SANDBOX_JAIL > setup.txt; echo x > MAIN/escape.txt; echo x > `+etc+`; true"`)
	t.Cleanup(r.stopAll)
	os.WriteFile(filepath.Join(r.root, "a.txt"), []byte("uncommitted\n"), 0o644)

	out := r.mustSandbox("agents", "spawn", "a", "--", "sh", "-c", serveAndGet("a"))
	for _, want := range []string{"base HEAD = " + r.head, "uncommitted changes", "copied .env", "agent a running"} {
		if !strings.Contains(out, want) {
			t.Errorf("spawn's output lacks %q:\n%s", want, out)
		}
	}
	r.mustSandbox("agents", "spawn", "b", "--", "sh", "-c", serveAndGet("b"))

	// Each binds 127.0.0.1:3000 in its own network namespace and reaches its own.
	testenv.WaitFor(t, "a's got.txt", r.fileIs(filepath.Join(r.wt("a"), "got.txt"), "a"))
	testenv.WaitFor(t, "b's got.txt", r.fileIs(filepath.Join(r.wt("b"), "got.txt"), "b"))
	for _, name := range []string{"a", "b"} {
		wt := r.wt(name)
		for path, want := range map[string]string{".env": "SECRET=from-main", "setup.txt": "jail=1", "a.txt": "committed"} {
			if !r.fileIs(filepath.Join(wt, path), want)() {
				t.Errorf("%s/%s is not %q", name, path, want)
			}
		}
	}
	for _, p := range []string{filepath.Join(r.root, "escape.txt"), etc} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("the setup command wrote %s, outside its worktree", p)
		}
	}
	list := r.list()
	for _, name := range []string{"a", "b"} {
		s := list[name]
		if s.State.Final() || s.Branch != "sandbox/"+name || s.Base != r.head || s.Worktree != r.wt(name) || s.PID <= 0 || s.Pending != 0 {
			t.Errorf("list: %s = %+v", name, s)
		}
		// the jail's usage, from its cgroup (memory: the controller's
		// count, or its processes' when no controller counts for it)
		if s.CPUSeconds <= 0 || s.MemoryBytes <= 0 {
			t.Errorf("list: %s's jail uses CPU %v s, memory %d bytes", name, s.CPUSeconds, s.MemoryBytes)
		}
	}

	// kill -9 of a's supervisor: its jail goes, list says stopped, resume
	// brings it back in the same worktree.
	jail := descendants(list["a"].PID)
	if len(jail) == 0 {
		t.Fatal("a's supervisor has no jail below it")
	}
	syscall.Kill(list["a"].PID, syscall.SIGKILL)
	testenv.WaitFor(t, "a's jail to die with its supervisor", func() bool { return len(liveOf(jail)) == 0 })
	// the supervisor's lock goes with its last thread, which may outlive
	// the jail (killed with the thread that started it) by a moment
	testenv.WaitFor(t, "list to show a stopped", func() bool { return r.list()["a"].State == fleet.Stopped })
	os.Remove(filepath.Join(r.wt("a"), "got.txt"))
	r.mustSandbox("agents", "resume", "a")
	testenv.WaitFor(t, "resumed a's got.txt", r.fileIs(filepath.Join(r.wt("a"), "got.txt"), "a"))
	if s := r.list()["a"]; s.State.Final() || s.Worktree != r.wt("a") {
		t.Errorf("resumed a: %+v", s)
	}

	// stop ends the jail; rm removes the worktree and the branch.
	bJail := descendants(r.list()["b"].PID)
	r.mustSandbox("agents", "stop", "b")
	if live := liveOf(bJail); len(live) > 0 {
		t.Errorf("b's jail outlived stop: %v", live)
	}
	if code, _, errs := r.sandbox("agents", "rm", "a"); code == 0 || !strings.Contains(errs, "stop a") {
		t.Errorf("rm of a running agent: exit %d %s", code, errs)
	}
	r.mustSandbox("agents", "rm", "b")
	if _, err := os.Stat(r.wt("b")); err == nil || strings.Contains(r.git("branch"), "sandbox/b") {
		t.Error("rm left b's worktree or branch")
	}

	// A worktree deleted behind our back.
	r.mustSandbox("agents", "stop", "a")
	os.RemoveAll(r.wt("a"))
	if code, _, errs := r.sandbox("agents", "resume", "a"); code == 0 || !strings.Contains(errs, "gone") {
		t.Errorf("resume without a worktree: exit %d %s", code, errs)
	}
	if out := r.mustSandbox("agents", "rm", "a"); !strings.Contains(out, "already gone") {
		t.Errorf("rm of a deleted worktree: %s", out)
	}
	if len(r.list()) != 0 || strings.Contains(r.git("branch"), "sandbox/") {
		t.Errorf("after rm: %v %s", r.list(), r.git("branch"))
	}
}

// Two spawns of one NAME at once: one wins, the other says why not.
func TestAgentsSpawnRace(t *testing.T) {
	requireRunJail(t)
	r := newAgentsRepo(t, "true")
	t.Cleanup(r.stopAll)
	var wg sync.WaitGroup
	codes, errs := make([]int, 2), make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := r.cmd("agents", "spawn", "same", "--", "sleep", "300")
			var e bytes.Buffer
			cmd.Stderr = &e
			cmd.Run()
			codes[i], errs[i] = cmd.ProcessState.ExitCode(), e.String()
		}()
	}
	wg.Wait()
	if codes[0]+codes[1] != 1 || codes[0]*codes[1] != 0 {
		t.Fatalf("exit codes %v, want one 0 and one 1: %q", codes, errs)
	}
	loser := errs[0] + errs[1]
	if !strings.Contains(loser, "busy") && !strings.Contains(loser, "already exists") {
		t.Errorf("the losing spawn says %q", loser)
	}
	if len(r.list()) != 1 {
		t.Errorf("list: %v", r.list())
	}
}

func TestAgentsHeadlessAndAttach(t *testing.T) {
	requireRunJail(t)
	r := newAgentsRepo(t, "true")
	t.Cleanup(r.stopAll)
	code, _, errs := r.sandbox("agents", "spawn", "h", "--headless", "--wait", "--", "sh", "-c", "echo out-of-h; exit 3")
	if code != 3 {
		t.Errorf("spawn --wait of an agent that exits 3: exit %d %s", code, errs)
	}
	if s := r.list()["h"]; s.State != fleet.Failed || s.Exit == nil || *s.Exit != 3 {
		t.Errorf("h: %+v", s)
	}
	if logs := r.mustSandbox("agents", "logs", "h"); !strings.Contains(logs, "out-of-h") {
		t.Errorf("logs of h: %s", logs)
	}

	r.mustSandbox("agents", "spawn", "i", "--", "sh", "-c", "read l; echo got:$l; sleep 300")
	attach := r.cmd("agents", "attach", "i")
	term, err := pty.Start(attach)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	var mu sync.Mutex
	var seen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			mu.Lock()
			seen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	saw := func(s string) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return strings.Contains(seen.String(), s) }
	}
	testenv.WaitFor(t, "attach to start", saw("attached to i"))
	io.WriteString(term, "hello\r")
	testenv.WaitFor(t, "the agent's answer through attach", saw("got:hello"))
	io.WriteString(term, "\x1dd")
	done := make(chan error, 1)
	go func() { done <- attach.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("attach after detach: %v", err)
		}
	case <-time.After(10 * time.Second):
		attach.Process.Kill()
		t.Fatal("Ctrl-] d did not detach")
	}
	if s := r.list()["i"]; s.State.Final() {
		t.Errorf("after detach i is %s", s.State)
	}
	if logs := r.mustSandbox("agents", "logs", "i"); !strings.Contains(logs, "got:hello") {
		t.Errorf("i's transcript: %s", logs)
	}
}

func TestAgentsBadInput(t *testing.T) {
	testenv.RequireCommand(t, "git")
	r := newAgentsRepo(t, "true")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"name with a slash", []string{"spawn", "a/b", "--", "true"}, exitUsage, "invalid agent name"},
		{"upper-case name", []string{"spawn", "Agent", "--", "true"}, exitUsage, "invalid agent name"},
		{"name ending .lock", []string{"spawn", "x.lock", "--", "true"}, exitUsage, "invalid agent name"},
		{"dot dot", []string{"spawn", "a..b", "--", "true"}, exitUsage, "invalid agent name"},
		{"missing base", []string{"spawn", "x", "--base", "no-such-branch", "--", "true"}, exitFailure, "no such commit"},
		{"option as base", []string{"spawn", "x", "--base=--all", "--", "true"}, exitFailure, "no such commit"},
		{"unknown agent", []string{"spawn", "x", "--agent", "nope"}, exitUsage, "not an agent sandbox can start"},
		{"headless without task", []string{"spawn", "x", "--headless"}, exitUsage, "no task"},
		{"task and command", []string{"spawn", "x", "--task", "t", "--", "true"}, exitUsage, "--task"},
		{"two names", []string{"spawn", "x", "y"}, exitUsage, "one NAME"},
		{"rm unknown", []string{"rm", "nobody"}, exitFailure, "no such agent"},
		{"resume unknown", []string{"resume", "nobody"}, exitFailure, "no such agent"},
		{"stop unknown", []string{"stop", "nobody"}, exitFailure, "no such agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := r.sandbox(append([]string{"agents"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(r.root, ".sandbox", "worktrees", "x")); err == nil {
		t.Error("a refused spawn left a worktree")
	}
	if strings.Contains(r.git("branch"), "sandbox/") {
		t.Error("a refused spawn left a branch")
	}
	// A project folder below the repository's top.
	os.MkdirAll(filepath.Join(r.root, "sub", ".sandbox"), 0o755)
	if code, _, errs := r.sandbox("agents", "spawn", "x", "--dir", filepath.Join(r.root, "sub"), "--", "true"); code != exitFailure || !strings.Contains(errs, "top of its git work tree") {
		t.Errorf("spawn below the top: exit %d %s", code, errs)
	}
	// A branch of the name is the human's: refused, and kept.
	r.git("branch", "sandbox/taken")
	if code, _, errs := r.sandbox("agents", "spawn", "taken", "--", "true"); code != exitFailure || !strings.Contains(errs, "branch sandbox/taken is there") {
		t.Errorf("spawn over an existing branch: exit %d %s", code, errs)
	}
	if !strings.Contains(r.git("branch"), "sandbox/taken") {
		t.Error("a refused spawn deleted the existing branch")
	}
	// that spawn failed after starting its supervisor ahead (at its gate):
	// the supervisor is gone, and so is the log it would have written
	if pids := supervisorsOf("taken"); len(pids) > 0 {
		t.Errorf("a failed spawn left its supervisor running: %v", pids)
	}
	filepath.WalkDir(r.state, func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Base(filepath.Dir(p)) == "taken" && d.Name() != "lock" { // the name's lock stays, as after any spawn
			t.Errorf("a failed spawn left %s", p)
		}
		return nil
	})
}

// supervisorsOf lists the running `agents supervise ... NAME` processes.
func supervisorsOf(name string) []string {
	var pids []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if len(args) > 2 && args[1] == "agents" && args[2] == "supervise" && args[len(args)-1] == name {
			pids = append(pids, d.Name())
		}
	}
	return pids
}

// CI fan-out: four headless agents at once, each in its own worktree and
// jail, one report checked field by field.
func TestAgentsCIFanOut(t *testing.T) {
	requireRunJail(t)
	r := newAgentsRepo(t, "true")
	t.Cleanup(r.stopAll)
	tasks := filepath.Join(t.TempDir(), "tasks.yaml")
	os.WriteFile(tasks, []byte(`tasks:
  - {name: edits, command: [sh, -c, "echo more >> a.txt"]}
  - {name: quiet, command: ["true"]}
  - {name: fails, command: [sh, -c, "exit 3"]}
  - {name: pushes, command: [sh, -c, "git push origin HEAD; test $? = 126"]}
`), 0o644)
	report := filepath.Join(t.TempDir(), "r.json")
	code, out, errs := r.sandbox("agents", "run", "--ci", "--tasks", tasks, "--report", report, "--parallel", "4")
	if code != exitFailure || !strings.Contains(errs, "1 of 4 agents failed") {
		t.Errorf("exit %d, want %d: %s%s", code, exitFailure, out, errs)
	}
	var rep fleet.FleetReport
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Version != 1 || rep.Folder != r.root || rep.Failed != 1 || rep.Denied != 1 || len(rep.Agents) != 4 || rep.Finished.Before(rep.Started) {
		t.Fatalf("report: %+v", rep)
	}
	want := map[string]struct {
		outcome       fleet.State
		exit          int
		denied, files int
	}{"edits": {fleet.Done, 0, 0, 1}, "quiet": {fleet.Done, 0, 0, 0}, "fails": {fleet.Failed, 3, 0, 0}, "pushes": {fleet.Done, 0, 1, 0}}
	for i, a := range rep.Agents {
		w, ok := want[a.Name]
		if !ok || a.Name != []string{"edits", "quiet", "fails", "pushes"}[i] {
			t.Errorf("agent %d is %q", i, a.Name)
			continue
		}
		if a.Outcome != w.outcome || a.Exit == nil || *a.Exit != w.exit || a.Denied != w.denied || a.Approved != 0 ||
			len(a.Escalations) != w.denied || a.Diffstat.Files != w.files || a.Agent != fleet.CommandAgent ||
			a.Branch != "sandbox/"+a.Name || a.Base != r.head || a.Worktree != r.wt(a.Name) {
			t.Errorf("%s: %+v", a.Name, a)
		}
	}
	if e := rep.Agents[3].Escalations; len(e) == 1 && (e[0].Kind != "shell" || e[0].Subject != "git push origin HEAD" || e[0].Outcome != "denied") {
		t.Errorf("pushes' escalation: %+v", e[0])
	}
	if rep.Agents[0].Diffstat.Insertions != 1 {
		t.Errorf("edits' diffstat: %+v", rep.Agents[0].Diffstat)
	}

	// Without the failing agent, --fail-on-deny makes the denial count.
	os.WriteFile(tasks, []byte("tasks:\n  - {name: pushes2, command: [sh, -c, \"git push origin HEAD; true\"]}\n"), 0o644)
	if code, out, errs := r.sandbox("agents", "run", "--ci", "--tasks", tasks, "--fail-on-deny"); code != exitCIDenied {
		t.Errorf("--fail-on-deny: exit %d, want %d: %s%s", code, exitCIDenied, out, errs)
	}
}
