package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/team/natstest"
	"github.com/sandbox-dev/sandbox/team/relay"
)

// Team mode through the real binary, two machines (their own project and
// per-user state) and a real nats-server: a request raised by `sandbox
// request` on machine A is listed and approved from machine B with B's
// key, which A's accepted policy trusts; it runs once on A, the output
// reaches A's requester and B's approver; B's key outside its scope is
// refused, and the refusal is in A's audit log.
func TestTeamRemoteApprovalThroughTheRelay(t *testing.T) {
	url := natstest.Start(t, nil).ClientURL()

	a, b := newEnv(t), newEnv(t) // two machines' per-user states
	dir := a.project("claude", nil)
	pub := strings.TrimSpace(b.mustSandbox("keys", "new"))
	a.mustSandbox("keys", "trust", pub, "--name", "bob", "--scope", "command:echo **", "--dir", dir)
	a.mustSandbox("policy", "accept", "--yes", "--dir", dir)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	relayCmd := exec.CommandContext(ctx, sandboxBin, "relay", dir, "--nats", url, "--org", "acme", "--host", "ws-a")
	relayCmd.Env = a.vars()
	// a file, not a buffer: the relay writes it while the test reads it
	relayLog, err := os.Create(filepath.Join(t.TempDir(), "relay.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer relayLog.Close()
	relayCmd.Stderr = relayLog
	if err := relayCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { relayCmd.Process.Kill(); relayCmd.Wait() })

	ask := func(argv ...string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.CommandContext(ctx, sandboxBin, append([]string{"request", "--dir", dir, "--wait", "90s", "--"}, argv...)...)
		cmd.Env = a.vars()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	type view struct{ ID, Hash, Host, Project, Summary string }
	await := func(what string) view {
		t.Helper()
		var got view
		testenv.WaitFor(t, what+" on NATS", func() bool {
			out, err := b.sandbox("list", "--nats", url, "--org", "acme", "--json")
			var vs []view
			if err != nil || json.Unmarshal([]byte(out), &vs) != nil {
				return false
			}
			for _, v := range vs {
				if strings.Contains(v.Summary, what) {
					got = v
					return true
				}
			}
			return false
		})
		return got
	}

	req, reqOut := ask("echo", "hello-remote")
	v := await("hello-remote")
	if v.Host != "ws-a" || v.Project != filepath.Base(dir) || v.Hash == "" {
		t.Errorf("listed: %+v", v)
	}
	if out, err := b.sandbox("approve", v.ID, "--nats", url, "--org", "acme", "--hash", "0000"); err == nil || !strings.Contains(out, "nothing approved") {
		t.Errorf("an approval of another hash: %v\n%s", err, out)
	}
	out := b.mustSandbox("approve", v.ID, "--nats", url, "--org", "acme", "--hash", v.Hash)
	if !strings.Contains(out, "hello-remote") || !strings.Contains(out, "approved by bob") {
		t.Errorf("the approver's output:\n%s", out)
	}
	if err := req.Wait(); err != nil || !strings.Contains(reqOut.String(), "hello-remote") {
		t.Errorf("the requester on A: %v\n%s", err, reqOut.String())
	}

	// the streams are plain JetStream: natscli reads them
	natscli := testenv.RequireCommand(t, "nats")
	nats := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, natscli, append([]string{"--server", url}, args...)...).CombinedOutput()
		return string(out), err
	}
	out, err = nats("stream", "info", relay.AuditStream, "--json")
	var info struct {
		Config struct {
			DenyDelete bool `json:"deny_delete"`
			DenyPurge  bool `json:"deny_purge"`
		} `json:"config"`
		State struct {
			Messages int `json:"messages"`
		} `json:"state"`
	}
	if err != nil || json.Unmarshal([]byte(out), &info) != nil || info.State.Messages == 0 || !info.Config.DenyDelete || !info.Config.DenyPurge {
		t.Errorf("natscli stream info: %v %+v\n%s", err, info, out)
	}
	key := relay.DecisionKey("acme", "ws-a", filepath.Base(dir), v.ID, pub)
	out, err = nats("kv", "get", relay.DecisionsKV, key, "--raw")
	if err != nil || !strings.Contains(out, `"verdict":"approved"`) || !strings.Contains(out, `"sig":`) {
		t.Errorf("natscli kv get %s: %v\n%s", key, err, out)
	}
	if out, err := nats("stream", "rmm", relay.AuditStream, "1", "-f"); err == nil {
		t.Errorf("natscli deleted an audit record:\n%s", out)
	}

	// outside bob's scope: refused, audited, and still decidable on A
	req2, _ := ask("touch", "out-of-scope")
	v2 := await("out-of-scope")
	if out, err := b.sandbox("approve", v2.ID, "--nats", url, "--org", "acme", "--hash", v2.Hash); err == nil ||
		!strings.Contains(out, "refused this decision: outside what the policy trusts this key to decide") {
		t.Errorf("an approval outside bob's scope: %v\n%s", err, out)
	}
	testenv.WaitFor(t, "the refusal in A's audit log", func() bool {
		out, _ := a.sandbox("audit", "show", "--dir", dir)
		return strings.Contains(out, "team.decision.refused")
	})
	a.mustSandbox("deny", v2.ID, "--dir", dir, "--reason", "no")
	req2.Wait()
	// the team's audit stream holds A's chain, intact
	testenv.WaitFor(t, "the audit stream to verify", func() bool {
		out, err := b.sandbox("audit", "verify", "--nats", url, "--org", "acme", "--host", "ws-a")
		return err == nil && strings.Contains(out, "ws-a/"+filepath.Base(dir)+": ") && strings.Contains(out, "records, OK")
	})
	if log, _ := os.ReadFile(relayLog.Name()); strings.Contains(string(log), "panic") {
		t.Errorf("relay:\n%s", log)
	}
}

// teamSetup is two machines on NATS: A with a folder that trusts B's
// approver key (no scope) and its relay, B with the key.
type teamSetup struct {
	t    *testing.T
	url  string // every node, comma separated
	a, b *env
	dir  string
	ctx  context.Context
	logs string
}

func newTeamSetup(t *testing.T) *teamSetup {
	return newTeamSetupOn(t, natstest.Start(t, nil).ClientURL(), 1)
}

// newTeamSetupOn is newTeamSetup on the servers at url, the relay's
// streams with that many replicas.
func newTeamSetupOn(t *testing.T, url string, replicas int) *teamSetup {
	ts := &teamSetup{t: t, url: url, a: newEnv(t), b: newEnv(t), logs: t.TempDir()}
	ts.dir = ts.a.project("claude", nil)
	pub := strings.TrimSpace(ts.b.mustSandbox("keys", "new"))
	ts.a.mustSandbox("keys", "trust", pub, "--name", "bob", "--dir", ts.dir)
	ts.a.mustSandbox("policy", "accept", "--yes", "--dir", ts.dir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	ts.ctx = ctx
	ts.start(ts.a, "relay.log", nil, "relay", ts.dir, "--nats", ts.url, "--org", "acme", "--host", "ws-a", "--replicas", fmt.Sprint(replicas))
	return ts
}

// start runs the binary as env's user, its output to a file in the
// test's logs (written by the process while the test reads it).
func (ts *teamSetup) start(env *env, name string, stdin *os.File, argv ...string) (*exec.Cmd, string) {
	t := ts.t
	cmd := exec.CommandContext(ts.ctx, sandboxBin, argv...)
	cmd.Env = env.vars()
	log, err := os.Create(filepath.Join(ts.logs, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	cmd.Stdout, cmd.Stderr, cmd.Stdin = log, log, stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, log.Name()
}

func readLog(path string) string { b, _ := os.ReadFile(path); return string(b) }

// request raises a request on A with `sandbox request`.
func (ts *teamSetup) request(name string, argv ...string) (*exec.Cmd, string) {
	return ts.start(ts.a, name, nil, append([]string{"request", "--dir", ts.dir, "--wait", "90s", "--"}, argv...)...)
}

// `sandbox watch --nats` on machine B, on a three-node JetStream
// cluster: a request raised on machine A is shown grouped by machine and
// project; B approves it with its key, A runs it once, its output is
// shown on B as it runs and reaches A's requester; a request decided on A
// leaves B's screen; B's own folder, served by B's own relay, shows up
// as another machine's. natscli reads the streams: plain JetStream.
func TestTeamWatchOverNATS(t *testing.T) {
	ts := newTeamSetupOn(t, natstest.URLs(natstest.StartCluster(t)), 3)
	a, dir := ts.a, ts.dir
	// B's own folder, trusting B's key, served by B's relay
	pub := strings.TrimSpace(ts.b.mustSandbox("keys", "show"))
	dirB := ts.b.project("claude", nil)
	ts.b.mustSandbox("keys", "trust", pub, "--name", "bob", "--dir", dirB)
	ts.b.mustSandbox("policy", "accept", "--yes", "--dir", dirB)
	ts.start(ts.b, "relay-b.log", nil, "relay", dirB, "--nats", ts.url, "--org", "acme", "--host", "ws-b", "--replicas", "3")
	keys, typed, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer typed.Close()
	watchCmd, screen := ts.start(ts.b, "watch.log", keys, "watch", "--nats", ts.url, "--org", "acme", "--plain")
	keys.Close()

	req, reqLog := ts.request("request.log", "sh", "-c", "echo live-one; echo live-two >&2")
	project := filepath.Base(dir)
	testenv.WaitFor(t, "the request on B's screen", func() bool {
		s := readLog(screen)
		return strings.Contains(s, "══ ws-a/"+project+" · 1 pending ══") && strings.Contains(s, "echo live-one") &&
			strings.Contains(s, "ws-a/"+project+": [a] approve")
	})
	typed.WriteString("a\n")
	testenv.WaitFor(t, "the outcome on B's screen", func() bool { return strings.Contains(readLog(screen), "approved by bob") })
	if s := readLog(screen); !strings.Contains(s, "   │ live-one") || !strings.Contains(s, "   ! live-two") {
		t.Errorf("B's screen shows no output:\n%s", s)
	}
	if err := req.Wait(); err != nil || !strings.Contains(readLog(reqLog), "live-one") {
		t.Errorf("the requester on A: %v\n%s", err, readLog(reqLog))
	}

	// decided on A while B shows it: it leaves B's screen
	ts.request("request2.log", "echo", "decided-on-a")
	testenv.WaitFor(t, "the second request on B's screen", func() bool { return strings.Contains(readLog(screen), "decided-on-a") })
	var id string
	testenv.WaitFor(t, "the second request's id on A", func() bool {
		out, _ := a.sandbox("list", "--dir", dir, "--json")
		var vs []struct{ ID, Summary string }
		json.Unmarshal([]byte(out), &vs)
		for _, v := range vs {
			if strings.Contains(v.Summary, "decided-on-a") {
				id = v.ID
			}
		}
		return id != ""
	})
	a.mustSandbox("deny", id, "--dir", dir, "--reason", "no")
	testenv.WaitFor(t, "the second request off B's screen", func() bool {
		return strings.Contains(readLog(screen), id+" is no longer pending")
	})
	// B's own machine's request, under its own heading
	reqB, reqBLog := ts.start(ts.b, "request-b.log", nil, "request", "--dir", dirB, "--wait", "90s", "--", "echo", "on-machine-b")
	testenv.WaitFor(t, "B's own request on B's screen", func() bool {
		s := readLog(screen)
		return strings.Contains(s, "══ ws-b/"+filepath.Base(dirB)+" · 1 pending ══") && strings.Contains(s, "ws-b/"+filepath.Base(dirB)+": [a] approve")
	})
	typed.WriteString("a\n")
	if err := reqB.Wait(); err != nil || !strings.Contains(readLog(reqBLog), "on-machine-b") {
		t.Errorf("the requester on B: %v\n%s", err, readLog(reqBLog))
	}
	testenv.WaitFor(t, "the outcome of B's request", func() bool { return strings.Count(readLog(screen), "approved by bob") == 2 })
	typed.WriteString("q\n")
	if err := watchCmd.Wait(); err != nil {
		t.Errorf("watch --nats: %v\n%s", err, readLog(screen))
	}

	// the streams are plain JetStream, replicated on the three nodes
	natscli := testenv.RequireCommand(t, "nats")
	out, err := exec.CommandContext(ts.ctx, natscli, "--server", ts.url, "stream", "info", relay.RequestsStream, "--json").CombinedOutput()
	var info struct {
		Config struct {
			Replicas int `json:"num_replicas"`
		} `json:"config"`
		State struct {
			Messages int `json:"messages"`
		} `json:"state"`
	}
	if err != nil || json.Unmarshal(out, &info) != nil || info.Config.Replicas != 3 || info.State.Messages < 3 {
		t.Errorf("natscli stream info: %v %+v\n%s", err, info, out)
	}
}

// serveNATS starts `sandbox serve --nats` as B and returns the address
// it prints, with its one-time sign-in code.
func (ts *teamSetup) serveNATS() (base, code string) {
	_, log := ts.start(ts.b, "serve.log", nil, "serve", "--nats", ts.url, "--org", "acme")
	var addr string
	testenv.WaitFor(ts.t, "serve's address", func() bool {
		first, _, ok := strings.Cut(readLog(log), "\n")
		addr = first
		return ok && strings.Contains(first, "#code=")
	})
	base, code, _ = strings.Cut(addr, "/#code=")
	return base, code
}

// signIn trades the code for a token, as the page does.
func (ts *teamSetup) signIn(base, code string) string {
	resp, err := http.Post(base+"/api/session", "application/json", strings.NewReader(`{"code":"`+code+`"}`))
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	var s struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || s.Token == "" {
		ts.t.Fatalf("session: %v %d", err, resp.StatusCode)
	}
	return s.Token
}

// `sandbox serve --nats` on machine B: the page's API lists A's request,
// an approval naming another hash approves nothing, one naming the hash
// shown runs it once on A; its live output and outcome arrive on the
// events socket, and the output reaches A's requester.
func TestTeamServeOverNATS(t *testing.T) {
	ts := newTeamSetup(t)
	base, code := ts.serveNATS()
	token := ts.signIn(base, code)
	call := func(method, path, body string) (int, string) {
		r, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	ws, _, err := websocket.Dial(ts.ctx, "ws"+strings.TrimPrefix(base, "http")+"/api/events",
		&websocket.DialOptions{Subprotocols: []string{"sandbox.v1", "sandbox.token." + token}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()

	req, reqLog := ts.request("request.log", "sh", "-c", "echo served-live; echo served-err >&2")
	type view struct{ Key, Hash, Display, Host string }
	var v view
	testenv.WaitFor(t, "the request on the team page", func() bool {
		_, body := call("GET", "/api/team", "")
		var tv struct{ Requests []view }
		json.Unmarshal([]byte(body), &tv)
		for _, r := range tv.Requests {
			if strings.Contains(r.Display, "served-live") {
				v = r
				return true
			}
		}
		return false
	})
	if code, body := call("POST", "/api/team/"+v.Key+"/approve", `{"hash":"0000"}`); code != 409 {
		t.Errorf("an approval of another hash: %d %s", code, body)
	}
	if code, body := call("POST", "/api/team/"+v.Key+"/approve", `{"hash":"`+v.Hash+`"}`); code != 202 {
		t.Fatalf("approve: %d %s", code, body)
	}
	var live, outcome string
	for outcome == "" {
		_, b, err := ws.Read(ts.ctx)
		if err != nil {
			t.Fatalf("events: %v (live so far %q)", err, live)
		}
		var ev struct {
			Type, ID, Stream, Text string
			Team                   *struct{ Decision, Approver, Error string }
		}
		json.Unmarshal(b, &ev)
		switch {
		case ev.Type == "team.output" && ev.ID == v.Key:
			live += ev.Stream + ":" + ev.Text
		case ev.Type == "team.outcome" && ev.ID == v.Key:
			outcome = ev.Team.Decision + " by " + ev.Team.Approver + ev.Team.Error
		}
	}
	if outcome != "approved by bob" || !strings.Contains(live, "stdout:served-live") || !strings.Contains(live, "stderr:served-err") {
		t.Errorf("outcome %q, live output %q", outcome, live)
	}
	if err := req.Wait(); err != nil || !strings.Contains(readLog(reqLog), "served-live") {
		t.Errorf("the requester on A: %v\n%s", err, readLog(reqLog))
	}
	testenv.WaitFor(t, "the request off the team page", func() bool {
		_, body := call("GET", "/api/team", "")
		return !strings.Contains(body, v.Key)
	})
}

// The team approver page in Debian's chromium (testdata/team.mjs): a
// request raised on machine A shown under its machine, whole, with its
// hash and its escapes visible; approved with the keyboard; its output
// and outcome shown as they arrive.
func TestTeamPageInABrowser(t *testing.T) {
	node, modules := testenv.RequireBrowser(t, repoRoot())
	ts := newTeamSetup(t)
	base, code := ts.serveNATS()
	shot := filepath.Join(os.Getenv("SANDBOX_SHOT_DIR"), "team.png")
	if os.Getenv("SANDBOX_SHOT_DIR") == "" {
		shot = filepath.Join(t.TempDir(), "team.png")
	}
	cmd := exec.CommandContext(ts.ctx, node, filepath.Join(repoRoot(), "connector", "e2e", "testdata", "team.mjs"), base+"/#code="+code, shot)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	steps := bufio.NewScanner(out)
	expectStep := func(want string) {
		t.Helper()
		if !steps.Scan() || steps.Text() != want {
			cmd.Wait()
			t.Fatalf("browser: want %s, got %q\n%s", want, steps.Text(), stderr.String())
		}
	}
	expectStep("READY")
	req, reqLog := ts.request("request.log", "sh", "-c", "echo browser-live # \x1b[31m")
	for _, s := range []string{"SHOWN", "APPROVED", "DONE"} {
		expectStep(s)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("browser: %v\n%s", err, stderr.String())
	}
	if err := req.Wait(); err != nil || !strings.Contains(readLog(reqLog), "browser-live") {
		t.Errorf("the requester on A: %v\n%s", err, readLog(reqLog))
	}
}
