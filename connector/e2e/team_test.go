package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// `sandbox watch --nats` on machine B shows a request raised on machine
// A, grouped by machine and project; B approves it with a key, A runs it
// once, its output is shown on B as it runs and reaches A's requester; a
// request decided on A leaves B's screen.
func TestTeamWatchOverNATS(t *testing.T) {
	url := natstest.Start(t, nil).ClientURL()
	a, b := newEnv(t), newEnv(t)
	dir := a.project("claude", nil)
	pub := strings.TrimSpace(b.mustSandbox("keys", "new"))
	a.mustSandbox("keys", "trust", pub, "--name", "bob", "--dir", dir)
	a.mustSandbox("policy", "accept", "--yes", "--dir", dir)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logs := t.TempDir()
	start := func(env *env, name string, stdin *os.File, argv ...string) (*exec.Cmd, string) {
		cmd := exec.CommandContext(ctx, sandboxBin, argv...)
		cmd.Env = env.vars()
		log, err := os.Create(filepath.Join(logs, name))
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
	read := func(path string) string { b, _ := os.ReadFile(path); return string(b) }
	start(a, "relay.log", nil, "relay", dir, "--nats", url, "--org", "acme", "--host", "ws-a")
	keys, typed, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer typed.Close()
	watchCmd, screen := start(b, "watch.log", keys, "watch", "--nats", url, "--org", "acme", "--plain")
	keys.Close()

	req, reqLog := start(a, "request.log", nil, "request", "--dir", dir, "--wait", "90s", "--", "sh", "-c", "echo live-one; echo live-two >&2")
	project := filepath.Base(dir)
	testenv.WaitFor(t, "the request on B's screen", func() bool {
		s := read(screen)
		return strings.Contains(s, "══ ws-a/"+project+" · 1 pending ══") && strings.Contains(s, "echo live-one") &&
			strings.Contains(s, "ws-a/"+project+": [a] approve")
	})
	typed.WriteString("a\n")
	testenv.WaitFor(t, "the outcome on B's screen", func() bool { return strings.Contains(read(screen), "approved by bob") })
	if s := read(screen); !strings.Contains(s, "   │ live-one") || !strings.Contains(s, "   ! live-two") {
		t.Errorf("B's screen shows no output:\n%s", s)
	}
	if err := req.Wait(); err != nil || !strings.Contains(read(reqLog), "live-one") {
		t.Errorf("the requester on A: %v\n%s", err, read(reqLog))
	}

	// decided on A while B shows it: it leaves B's screen
	start(a, "request2.log", nil, "request", "--dir", dir, "--wait", "90s", "--", "echo", "decided-on-a")
	testenv.WaitFor(t, "the second request on B's screen", func() bool { return strings.Contains(read(screen), "decided-on-a") })
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
		return strings.Contains(read(screen), id+" is no longer pending")
	})
	typed.WriteString("q\n")
	if err := watchCmd.Wait(); err != nil {
		t.Errorf("watch --nats: %v\n%s", err, read(screen))
	}
}
