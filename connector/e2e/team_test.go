package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// Team mode through the real binary, two machines (their own project and
// per-user state) and a real nats-server: a request raised by `sandbox
// request` on machine A is listed and approved from machine B with B's
// key, which A's accepted policy trusts; it runs once on A, the output
// reaches A's requester and B's approver; B's key outside its scope is
// refused, and the refusal is in A's audit log.
func TestTeamRemoteApprovalThroughTheRelay(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	url := s.ClientURL()

	a, b := newEnv(t), newEnv(t) // two machines' per-user states
	dir := a.project("claude", nil)
	pub := strings.TrimSpace(b.mustSandbox("keys", "new"))
	a.mustSandbox("keys", "trust", pub, "--name", "bob", "--scope", "command:echo **", "--dir", dir)
	a.mustSandbox("policy", "accept", "--yes", "--dir", dir)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	relay := exec.CommandContext(ctx, sandboxBin, "relay", dir, "--nats", url, "--org", "acme", "--host", "ws-a")
	relay.Env = a.vars()
	var relayLog bytes.Buffer
	relay.Stderr = &relayLog
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { relay.Process.Kill(); relay.Wait() })

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
	if strings.Contains(relayLog.String(), "panic") {
		t.Errorf("relay:\n%s", relayLog.String())
	}
}
