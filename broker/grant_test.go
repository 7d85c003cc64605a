package broker_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// TestGrantFor: each escalated part grants what it names, nothing else;
// allowed parts add nothing.
func TestGrantFor(t *testing.T) {
	esc := func(tr policy.Trigger, subject string) policy.Part {
		return policy.Part{Trigger: tr, Subject: subject, Decision: policy.Escalate}
	}
	allow := func(tr policy.Trigger, subject string) policy.Part {
		return policy.Part{Trigger: tr, Subject: subject, Decision: policy.Allow}
	}
	env := []string{"SSH_AUTH_SOCK=/run/user/1/agent.sock", "PATH=/usr/bin:/bin"}
	tests := []struct {
		name  string
		parts []policy.Part
		check func(g broker.Grant) bool
	}{
		{"a write", []policy.Part{allow(policy.Shell, "echo x"), esc(policy.Write, "/outside/path")},
			func(g broker.Grant) bool {
				return slices.Equal(g.Write, []string{"/outside/path"}) && g.Net == broker.NetNone && len(g.Read) == 0
			}},
		{"a secret read", []policy.Part{esc(policy.Read, "/h/.ssh/id_rsa")},
			func(g broker.Grant) bool {
				return slices.Equal(g.Read, []string{"/h/.ssh/id_rsa"}) && g.Net == broker.NetNone
			}},
		{"hosts", []policy.Part{esc(policy.Shell, "curl https://example.com/x"), esc(policy.Network, "example.com:443")},
			func(g broker.Grant) bool {
				return g.Net == broker.NetHosts && slices.Equal(g.Hosts, []string{"example.com:443"})
			}},
		{"git push", []policy.Part{esc(policy.Shell, "git push origin master")},
			func(g broker.Grant) bool {
				return g.Net == broker.NetAll && g.Git == broker.GitRepo && slices.Contains(g.Read, "/h/.ssh") &&
					slices.Contains(g.Read, "/run/user/1/agent.sock") && slices.Contains(g.Read, "/h/.git-credentials")
			}},
		{"npm publish", []policy.Part{esc(policy.Shell, "npm publish")},
			func(g broker.Grant) bool { return g.Net == broker.NetAll && slices.Contains(g.Read, "/h/.npmrc") }},
		{"allowed git", []policy.Part{allow(policy.Shell, "git status")},
			func(g broker.Grant) bool {
				return g.Git == broker.GitRepo && g.Net == broker.NetNone && len(g.Read) == 0
			}},
		{"git clone", []policy.Part{esc(policy.Shell, "git clone https://x/y")},
			func(g broker.Grant) bool { return g.Git == broker.GitNew && g.Net == broker.NetAll }},
		{"sudo grants nothing", []policy.Part{esc(policy.Shell, "sudo rm -rf /")},
			func(g broker.Grant) bool { return g.Net == broker.NetNone && len(g.Read)+len(g.Write) == 0 }},
		{"denied parts grant nothing", []policy.Part{{Trigger: policy.Write, Subject: "/etc/passwd", Decision: policy.Deny}},
			func(g broker.Grant) bool { return len(g.Write) == 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := broker.GrantFor(tc.parts, "", "/h", env)
			if !tc.check(g) {
				t.Errorf("grant %+v", g)
			}
		})
	}
}

// TestDescribe: the lines name every grant, and the network plainly.
func TestDescribe(t *testing.T) {
	g := broker.Grant{Write: []string{"/nonexistent/x"}, Read: []string{"/h/.ssh"}, Net: broker.NetAll,
		Credentials: []string{"ssh keys (~/.ssh)"}, Env: []string{"PATH", "HOME"}, Git: broker.GitRepo}
	text := strings.Join(broker.Describe(g), "\n")
	for _, want := range []string{"grant jail", "write: /nonexistent/x (new", "read: /h/.ssh", "network: all", "ssh keys", "environment: HOME PATH", "hooks and fsmonitor off"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if d := broker.Describe(broker.Grant{}); !strings.Contains(strings.Join(d, "\n"), "network: none") {
		t.Errorf("zero grant: %q", d)
	}
}
