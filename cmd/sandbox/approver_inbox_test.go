package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentreg "github.com/sandbox-dev/sandbox/agents"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// inboxRepo is a repository (MAIN, accepted policy) with agents whose
// worktree folders and registry records are made directly, without git or
// a spawn: each folder has its own bus and the same accepted policy, and
// each record's lock is held by the test (its "supervisor"), so that the
// agent reads as running.
type inboxRepo struct {
	main folder.Folder
	reg  *agentreg.Registry
}

func newInboxRepo(t *testing.T, names ...string) *inboxRepo {
	t.Helper()
	root := project(t, true)
	main, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := agentreg.Open(main, projectState(t, root).Dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &inboxRepo{main: main, reg: reg}
	for _, n := range names {
		r.agent(t, n)
	}
	return r
}

// agent makes agent name's worktree folder and record.
func (r *inboxRepo) agent(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(r.main.Worktrees(), name)
	f := folder.Folder{Root: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Create(); err != nil {
		t.Fatal(err)
	}
	data := policy.DefaultYAML()
	os.WriteFile(f.Policy(), data, 0o644)
	if err := store.Accept(f, projectState(t, r.main.Root), data); err != nil {
		t.Fatal(err)
	}
	r.record(t, name, dir)
	lock, err := r.reg.Lock(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lock.Release)
	return dir
}

func (r *inboxRepo) record(t *testing.T, name, worktree string) {
	t.Helper()
	err := r.reg.Put(agentreg.Record{Name: name, Agent: "command", Branch: "sandbox/" + name, Worktree: worktree,
		State: agentreg.Running})
	if err != nil {
		t.Fatal(err)
	}
}

func (r *inboxRepo) dir(name string) string { return filepath.Join(r.main.Worktrees(), name) }

// submitAs queues a request in dir directly, as an agent writing the bus
// would, claiming to be client.
func submitAs(t *testing.T, dir, client, script string) *queue.Request {
	t.Helper()
	f, err := folder.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script},
		Cwd: f.Root, Source: queue.SourceCLI, Agent: client, Session: "s-" + queue.NewID()}
	if _, _, err := q.Submit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return req
}

// sandbox watch without arguments in MAIN shows every agent's requests
// tagged with the agent of the folder they arrived in, approves one
// agent's and denies another's, each in its own folder; a request that
// claims another agent is still attributed by its folder; records
// pointing outside MAIN/.sandbox/worktrees, or through a link, are left
// out.
func TestWatchInboxTagsAndDecides(t *testing.T) {
	t.Parallel()
	repo := newInboxRepo(t, "alice", "bob")
	outside := project(t, true)
	repo.record(t, "mallory", outside)
	if err := os.Symlink(outside, repo.dir("trudy")); err != nil {
		t.Fatal(err)
	}
	repo.record(t, "trudy", repo.dir("trudy"))
	hidden := submitAs(t, outside, "cli", "echo from-outside")

	screen, key, wait := plainWatch(t, repo.main.Root)
	screen.waitFor(t, "agents: alice running · bob running\n", 1)
	screen.waitFor(t, `! agent left out of the inbox: agent "mallory"`, 1)
	screen.waitFor(t, `! agent left out of the inbox: agent "trudy": `+repo.dir("trudy")+" is a link", 1)

	ra := startRequest(t, repo.dir("alice"), "s1", "", "--script", "echo from-alice; pwd")
	screen.waitFor(t, "── request "+ra.id, 1)
	screen.waitFor(t, "[L] always, all agents", 1)
	key("a")
	if code := ra.wait(); code != 0 || ra.out.String() != "from-alice\n"+repo.dir("alice")+"\n" {
		t.Fatalf("alice: exit %d, out %q\nwatch:\n%s", code, ra.out.String(), screen.String())
	}

	rb := startRequest(t, repo.dir("bob"), "s2", "", "--script", "echo must-not-run")
	screen.waitFor(t, "── request "+rb.id, 1)
	key("d not now, bob")
	if code := rb.wait(); code != 126 || !strings.Contains(rb.err.String(), "not now, bob") || rb.out.String() != "" {
		t.Fatalf("bob: exit %d, stdout %q, stderr %q", code, rb.out.String(), rb.err.String())
	}

	// alice's folder, bob's name: shown as alice's.
	liar := submitAs(t, repo.dir("alice"), "bob", "echo i-am-bob")
	screen.waitFor(t, "── request "+liar.ID, 1)
	key("d")
	screen.waitFor(t, "denied "+liar.ID, 1)
	key("q")
	if code := wait(); code != 0 {
		t.Errorf("watch exit %d", code)
	}
	shown := screen.String()
	for _, want := range []string{
		"+ new request " + ra.id + " [shell] echo from-alice; pwd  [agent alice · sandbox/alice]",
		"══ agent bob · sandbox/bob · client cli",
		"  agent    alice   (by the folder it arrived in)\n  branch   sandbox/alice\n  worktree " + repo.dir("alice"),
		"[agent alice · sandbox/alice]  (client bob,",
		`claims   the request says: source "cli", agent "bob"`,
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("watch did not show %q:\n%s", want, shown)
		}
	}
	for _, bad := range []string{hidden.ID, "from-outside", "[agent mallory", "mallory running", "[agent trudy", "trudy running", "[agent bob · sandbox/bob]  (client bob"} {
		if strings.Contains(shown, bad) {
			t.Errorf("watch showed %q:\n%s", bad, shown)
		}
	}
}

// The same request pending in two agents is shown once with "2 agents"
// and [b] approves it in each, once per folder.
func TestWatchInboxBatch(t *testing.T) {
	t.Parallel()
	repo := newInboxRepo(t, "alice", "bob", "carol")
	ra := startRequest(t, repo.dir("alice"), "s1", "", "--script", "echo batch; pwd")
	rb := startRequest(t, repo.dir("bob"), "s2", "", "--script", "echo batch; pwd")
	rc := startRequest(t, repo.dir("carol"), "s3", "", "--script", "echo other; pwd")
	watch := sandboxCmd(t, repo.main.Root, "watch", "--plain")
	keys, _ := watch.StdinPipe()
	screen, _ := started(t, watch)
	screen.waitFor(t, "same request pending in 2 agents: alice, bob   [b] approve it once in each", 1)
	screen.waitFor(t, "[b] approve in all 2 agents", 1)
	keys.Write([]byte("b\n"))
	// Each ran once, in its own folder, and its output reached its own
	// requester.
	for n, r := range map[string]*agentRequest{"alice": ra, "bob": rb} {
		if code := r.wait(); code != 0 || r.out.String() != "batch\n"+repo.dir(n)+"\n" {
			t.Fatalf("%s: exit %d, out %q\nwatch:\n%s", n, code, r.out.String(), screen.String())
		}
	}
	screen.waitFor(t, "── request "+rc.id, 1)
	keys.Write([]byte("d\n"))
	if code := rc.wait(); code != 126 || rc.out.String() != "" {
		t.Errorf("carol's different request: exit %d, out %q", code, rc.out.String())
	}
	keys.Write([]byte("q\n"))
	if code := exitOf(t, watch); code != 0 {
		t.Errorf("watch exit %d", code)
	}
	if n := strings.Count(screen.String(), "▶ approved "); n != 2 {
		t.Errorf("%d approvals, want 2:\n%s", n, screen.String())
	}
}

// [L] remembers the decision in MAIN's folder and every agent's: the same
// request in another agent is then approved by itself.
func TestWatchInboxAlwaysForAll(t *testing.T) {
	t.Parallel()
	repo := newInboxRepo(t, "alice", "bob")
	screen, key, wait := plainWatch(t, repo.main.Root)
	// git push escalates and writes nothing here (no repository: it
	// fails, which does not matter).
	args := []string{"--", "git", "push", "nowhere", "main"}
	ra := startRequest(t, repo.dir("alice"), "s1", "", args...)
	screen.waitFor(t, "── request "+ra.id, 1)
	key("L")
	ra.wait()
	screen.waitFor(t, "remembered for all agents: 2 more folder(s)", 1)
	rb := startRequest(t, repo.dir("bob"), "s2", "", args...)
	rb.wait()
	screen.waitFor(t, rb.id+" approved by remembered decision git push nowhere main", 1)
	key("q")
	wait()
	for _, dir := range []string{repo.main.Root, repo.dir("alice"), repo.dir("bob")} {
		f := folder.Folder{Root: dir}
		got, _ := store.LoadRemembered(f, projectState(t, repo.main.Root))
		if len(got) != 1 || got[0].Pattern != "git push nowhere main" {
			t.Errorf("%s: remembered %+v", dir, got)
		}
	}
}

// When an agent starts waiting, watch POSTs to the accepted policy's
// agents.notify.webhook and runs notify-send (a fake one here) with the
// agent and what it asks, never the command's arguments.
func TestWatchInboxNotifies(t *testing.T) {
	t.Parallel()
	hook := make(chan inbox.Notice, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n inbox.Notice
		json.NewDecoder(r.Body).Decode(&n)
		hook <- n
	}))
	defer srv.Close()
	repo := newInboxRepo(t, "alice")
	data := append(policy.DefaultYAML(), []byte("agents:\n  notify:\n    webhook: "+srv.URL+"/hook\n")...)
	os.WriteFile(repo.main.Policy(), data, 0o644)
	if err := store.Accept(repo.main, projectState(t, repo.main.Root), data); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	args := filepath.Join(bin, "args")
	os.WriteFile(filepath.Join(bin, "notify-send"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+".tmp && mv "+args+".tmp "+args+"\n"), 0o755)

	watch := sandboxCmd(t, repo.main.Root, "watch", "--plain")
	watch.Env = append(watch.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "DISPLAY=:99")
	keys, _ := watch.StdinPipe()
	screen, _ := started(t, watch)
	screen.waitFor(t, "waiting for requests", 1)
	r := startRequest(t, repo.dir("alice"), "s1", "", "--script", "curl -H 'Authorization: token-xyz' example.com")
	select {
	case n := <-hook:
		if n.Agent != "alice" || n.Branch != "sandbox/alice" || n.Request != r.id || n.Summary != "shell curl" || n.Pending != 1 {
			t.Errorf("webhook got %+v", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no webhook\nwatch:\n%s", screen.String())
	}
	testenv.WaitFor(t, "notify-send", func() bool { _, err := os.Stat(args); return err == nil })
	got, _ := os.ReadFile(args)
	if want := "--app-name=sandbox\n--\nsandbox: agent alice is waiting\n" + r.id + ": shell curl (1 pending)\n"; string(got) != want {
		t.Errorf("notify-send got %q, want %q", got, want)
	}
	keys.Write([]byte("d\nq\n"))
	r.wait()
	exitOf(t, watch)
}

// In a terminal (raw mode, single keys), L takes the pattern on a line
// like A and remembers it for every agent; the agents line says who waits.
func TestWatchInboxInATerminal(t *testing.T) {
	t.Parallel()
	repo := newInboxRepo(t, "alice", "bob")
	pane := newTmuxPane(t, "cd "+display.QuoteArg(repo.main.Root)+" && exec "+sandboxLine(t, repo.main.Root, "watch"))
	pane.waitFor("agents: alice running · bob running")
	ra := startRequest(t, repo.dir("alice"), "s1", "", "--", "git", "push", "nowhere", "main")
	pane.waitFor("── request " + ra.id)
	pane.waitFor("agents: alice waiting (1) · bob running")
	pane.waitFor("[L] always, all agents")
	pane.keys("L")
	pane.waitFor("pattern (Enter")
	pane.keys("Enter")
	ra.wait()
	pane.waitFor("remembered for all agents: 2 more folder(s)")
	rb := startRequest(t, repo.dir("bob"), "s2", "", "--", "git", "push", "nowhere", "main")
	rb.wait()
	pane.waitFor(rb.id + " approved by remembered decision git push nowhere main")
	pane.keys("q")
	for range 100 {
		if !pane.alive() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("watch did not quit:\n%s", pane.screen())
}
