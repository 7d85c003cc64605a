package serve

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// inboxHarness serves a repository's inbox: MAIN and agent folders made
// directly under MAIN/.sandbox/worktrees (no git, no spawn), each with the
// accepted default policy and its remembered decisions, and a registry
// the test edits (members).
type inboxHarness struct {
	*harness
	main    folder.Folder
	members atomic.Pointer[[]inbox.Member]
	byRoot  sync.Map // root -> *project
}

func newInboxHarness(t *testing.T, notify *inbox.Notifier, agents ...string) *inboxHarness {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	ih := &inboxHarness{harness: &harness{st: st, token: token, policies: newFakePolicies()}}
	ih.main = ih.folder(t, t.TempDir())
	ms := []inbox.Member{{Folder: ih.main, Tag: inbox.Tag{Agent: inbox.MainName}}}
	for _, a := range agents {
		ms = append(ms, ih.agent(t, a))
	}
	ih.members.Store(&ms)
	cfg := Config{Addr: testAddr, Token: token, State: st, Policies: ih.policies, Notify: notify,
		InboxEvery: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Inbox: func(*slog.Logger) ([]inbox.Member, error) { return *ih.members.Load(), nil },
		Open: func(f folder.Folder) (Folder, func(), error) {
			p := ih.project(t, f)
			return Folder{Approver: p.ap, Audit: p.lg}, func() {}, nil
		}}
	ctx, cancel := context.WithCancel(context.Background())
	ih.srv, err = New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cctx, c2 := context.WithTimeout(context.Background(), 30*time.Second)
		defer c2()
		if err := ih.srv.Close(cctx); err != nil {
			t.Error(err)
		}
	})
	ih.h = ih.srv.Handler()
	return ih
}

// folder makes root a folder with the default policy accepted.
func (ih *inboxHarness) folder(t *testing.T, root string) folder.Folder {
	t.Helper()
	f := testenv.Folder(t, root)
	data := policy.DefaultYAML()
	os.WriteFile(f.Policy(), data, 0o644)
	if err := store.Accept(f, ih.st, data); err != nil {
		t.Fatal(err)
	}
	return f
}

func (ih *inboxHarness) agent(t *testing.T, name string) inbox.Member {
	t.Helper()
	dir := filepath.Join(ih.main.Worktrees(), name)
	os.MkdirAll(dir, 0o755)
	f := ih.folder(t, dir)
	return inbox.Member{Folder: f, Tag: inbox.Tag{Agent: name, Branch: "sandbox/" + name, Worktree: f.Root, State: "running"}}
}

// project opens f's queue, audit log and approver (with the folder's
// real remembered decisions), once.
func (ih *inboxHarness) project(t *testing.T, f folder.Folder) *project {
	if p, ok := ih.byRoot.Load(f.Root); ok {
		return p.(*project)
	}
	q, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := audit.Open(f, ih.st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close(); q.Close() })
	ap, err := approver.New(approver.Options{Queue: q, Audit: lg, Timeout: time.Minute,
		Memory:   approver.NewPolicyMemory(f, ih.st, slog.New(slog.DiscardHandler)),
		Identity: approver.Identity{User: "tester@test", Surface: approver.SurfaceServe}})
	if err != nil {
		t.Fatal(err)
	}
	p := &project{f: f, q: q, lg: lg, ap: ap}
	ih.byRoot.Store(f.Root, p)
	return p
}

func (ih *inboxHarness) in(t *testing.T, name string) *project {
	t.Helper()
	root := ih.main.Root
	if name != inbox.MainName {
		root = filepath.Join(ih.main.Worktrees(), name)
	}
	p, ok := ih.byRoot.Load(root)
	if !ok {
		t.Fatalf("%s not opened", name)
	}
	return p.(*project)
}

func (ih *inboxHarness) agents(t *testing.T) map[string]AgentView {
	t.Helper()
	var out struct{ Agents []AgentView }
	decode(t, ih.do(t, "GET", "/api/agents", ""), 200, &out)
	m := map[string]AgentView{}
	for _, a := range out.Agents {
		m[a.Agent] = a
	}
	return m
}

// Every request carries the agent, branch and worktree of the folder it
// arrived in, whatever it claims; /api/agents says who waits.
func TestInboxTagsRequestsByFolder(t *testing.T) {
	ih := newInboxHarness(t, nil, "alice", "bob")
	liar := ih.in(t, "alice").submit(t, "echo hi") // its Agent field says "claude"
	req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: "echo i am bob"},
		Cwd: ih.in(t, "alice").f.Root, Source: queue.SourceCLI, Agent: "bob", Session: "s-x"}
	if _, _, err := ih.in(t, "alice").q.Submit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	mainReq := ih.in(t, inbox.MainName).submit(t, "echo main")
	got := map[string]RequestView{}
	for _, v := range ih.pending(t, 3) {
		got[v.ID] = v
	}
	alice := filepath.Join(ih.main.Worktrees(), "alice")
	for _, id := range []string{liar.ID, req.ID} {
		if v := got[id]; v.Agent != "alice" || v.Branch != "sandbox/alice" || v.Worktree != alice {
			t.Errorf("%s: agent %q branch %q worktree %q", id, v.Agent, v.Branch, v.Worktree)
		}
	}
	if got[req.ID].Client != "bob" || got[liar.ID].Client != "claude" {
		t.Errorf("clients %q %q", got[req.ID].Client, got[liar.ID].Client)
	}
	if v := got[mainReq.ID]; v.Agent != inbox.MainName || v.Branch != "" {
		t.Errorf("main's request: %+v", v)
	}
	var one RequestView
	decode(t, ih.do(t, "GET", "/api/requests/"+req.ID, ""), 200, &one)
	if one.Agent != "alice" || one.Client != "bob" {
		t.Errorf("GET one: agent %q client %q", one.Agent, one.Client)
	}
	a := ih.agents(t)
	if a["alice"].Status != inbox.Waiting || a["alice"].Pending != 2 || a["bob"].Status != inbox.Running ||
		a["bob"].Branch != "sandbox/bob" || !a[inbox.MainName].Main || len(a) != 3 {
		t.Fatalf("agents %+v", a)
	}
	// Denied, alice's request is done and still alice's.
	decode(t, ih.do(t, "POST", "/api/requests/"+req.ID+"/deny", `{}`), 200, nil)
	var done struct{ Requests []RequestView }
	decode(t, ih.do(t, "GET", "/api/requests?state=done", ""), 200, &done)
	if len(done.Requests) != 1 || done.Requests[0].Agent != "alice" {
		t.Fatalf("done %+v", done.Requests)
	}
}

// An agent spawned while the server runs is served from then on.
func TestInboxAgentJoinsLater(t *testing.T) {
	ih := newInboxHarness(t, nil, "alice")
	ms := append(*ih.members.Load(), ih.agent(t, "carol"))
	ih.members.Store(&ms)
	testenv.WaitFor(t, "carol joins", func() bool { _, ok := ih.agents(t)["carol"]; return ok })
	r := ih.in(t, "carol").submit(t, "echo from carol")
	v := ih.pending(t, 1)[0]
	if v.ID != r.ID || v.Agent != "carol" {
		t.Fatalf("carol's request %+v", v)
	}
	testenv.WaitFor(t, "carol waits", func() bool { return ih.agents(t)["carol"].Status == inbox.Waiting })
}

// The same request pending in two agents is one batch; approving it with
// batch runs it once in each folder.
func TestInboxBatchApproval(t *testing.T) {
	ih := newInboxHarness(t, nil, "alice", "bob", "carol")
	ra := ih.in(t, "alice").submit(t, "pwd")
	rb := ih.in(t, "bob").submit(t, "pwd")
	rc := ih.in(t, "carol").submit(t, "pwd; echo different")
	ih.pending(t, 3)
	var bl struct{ Batches []BatchView }
	decode(t, ih.do(t, "GET", "/api/batches", ""), 200, &bl)
	if len(bl.Batches) != 1 || len(bl.Batches[0].Requests) != 2 {
		t.Fatalf("batches %+v", bl)
	}
	var dv decisionView
	decode(t, ih.do(t, "POST", "/api/requests/"+ra.ID+"/approve", `{"hash":"`+ra.Hash+`","batch":true}`), 200, &dv)
	if dv.Result == nil || dv.Result.Stdout != ih.in(t, "alice").f.Root+"\n" || len(dv.Batch) != 1 ||
		dv.Batch[0].ID != rb.ID || dv.Batch[0].Agent != "bob" || dv.Batch[0].Result == nil ||
		dv.Batch[0].Result.Stdout != ih.in(t, "bob").f.Root+"\n" {
		t.Fatalf("batch approval %+v %+v", dv.Result, dv.Batch)
	}
	if v := ih.pending(t, 1)[0]; v.ID != rc.ID {
		t.Fatalf("left pending: %+v", v)
	}
	// A batch outside an inbox, or with always, is refused.
	decode(t, ih.do(t, "POST", "/api/requests/"+rc.ID+"/approve", `{"hash":"`+rc.Hash+`","batch":true,"always":true}`), 400, nil)
}

// "Always, for all agents" stores the remembered decision in every
// folder, and it settles the same request already pending elsewhere.
func TestInboxAlwaysForAllAgents(t *testing.T) {
	ih := newInboxHarness(t, nil, "alice", "bob")
	ra := ih.in(t, "alice").submit(t, "git push nowhere main")
	ih.pending(t, 1)
	rb := ih.in(t, "bob").submit(t, "git push nowhere main")
	ih.pending(t, 2)
	var dv decisionView
	decode(t, ih.do(t, "POST", "/api/requests/"+ra.ID+"/approve",
		`{"hash":"`+ra.Hash+`","always":true,"all_agents":true}`), 200, &dv)
	if dv.Result == nil || dv.Result.Always != "git push nowhere main" || dv.Warning != "" {
		t.Fatalf("approval %+v warning %q", dv.Result, dv.Warning)
	}
	for _, n := range []string{inbox.MainName, "alice", "bob"} {
		got, _ := store.LoadRemembered(ih.in(t, n).f, ih.st)
		if len(got) != 1 || got[0].Pattern != "git push nowhere main" {
			t.Errorf("%s: remembered %+v", n, got)
		}
	}
	testenv.WaitFor(t, "bob's request settled", func() bool {
		res, err := ih.in(t, "bob").q.Result(rb.ID)
		return err == nil && res.Decision == queue.Approved && res.Approver.Surface == approver.SurfaceRemembered
	})
}

// A webhook hears once when an agent starts waiting.
func TestInboxNotifiesWebhook(t *testing.T) {
	var mu sync.Mutex
	var got []inbox.Notice
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n inbox.Notice
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &n)
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	}))
	defer srv.Close()
	n := &inbox.Notifier{Webhook: srv.URL}
	ih := newInboxHarness(t, n, "alice")
	r := ih.in(t, "alice").submit(t, "echo hi")
	ih.in(t, inbox.MainName).submit(t, "echo main")
	ih.pending(t, 2)
	n.Wait()
	testenv.WaitFor(t, "the webhook", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) > 0 })
	n.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Agent != "alice" || got[0].Branch != "sandbox/alice" || got[0].Request != r.ID || got[0].Summary != "shell echo" {
		t.Fatalf("webhook got %+v", got)
	}
}
