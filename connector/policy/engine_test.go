package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

func TestEngineEffects(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	if err := os.Symlink(filepath.Join(env.root, ".sandbox"), filepath.Join(env.root, "sb")); err != nil {
		t.Fatal(err)
	}
	w := func(kind shell.Kind, p string) shell.Effect { return shell.Effect{Kind: kind, Path: p} }
	tests := []struct {
		name string
		effs []shell.Effect
		want Tier
		rule string // of the deciding part, when set
	}{
		{"git status", []shell.Effect{lit("git", "status")}, Allow, "git status **"},
		{"git push", []shell.Effect{lit("git", "push", "origin")}, Escalate, "git push **"},
		{"unknown", []shell.Effect{lit("frobnicate")}, Escalate, ruleDefault},
		{"rm -rf /", []shell.Effect{lit("rm", "-rf", "/")}, Deny, "rm -rf / **"},
		{"rm $X may match deny", []shell.Effect{dyn("rm", "$X")}, Escalate, "rm -rf / **"},
		{"ls $X dynamic ok", []shell.Effect{dyn("ls", "$X")}, Allow, "ls **"},
		{"git log $X not dynamic", []shell.Effect{dyn("git", "log", "$X")}, Escalate, "git ** --out* **"},
		{"dynamic name", []shell.Effect{dyn("$CMD", "x")}, Escalate, ruleDynamic},
		{"slash name", []shell.Effect{lit("/usr/bin/../bin/ls")}, Escalate, ruleDefault},
		{"escalate beats allow", []shell.Effect{lit("git", "log", "--output=/tmp/x")}, Escalate, "git ** --out* **"},
		{"opaque", []shell.Effect{{Kind: shell.Opaque, Reason: "eval runs a string"}}, Escalate, ruleOpaque},
		{"protected", []shell.Effect{{Kind: shell.Protected, Path: ".sand*"}}, Deny, ruleSelf},
		{"nothing", nil, Escalate, ruleNothing},
		{"write in project", []shell.Effect{lit("echo"), w(shell.Write, "out.txt")}, Allow, ""},
		{"write hook", []shell.Effect{lit("echo"), w(shell.Write, ".git/hooks/pre-commit")}, Escalate, ruleGit},
		{"write bashrc", []shell.Effect{lit("echo"), w(shell.Write, "~/.bashrc")}, Escalate, ruleDefault},
		{"write etc", []shell.Effect{lit("echo"), w(shell.Write, "/etc/passwd")}, Escalate, ruleDefault},
		{"write .sandbox", []shell.Effect{lit("echo"), w(shell.Write, ".sandbox/policy.yaml")}, Deny, ruleSelf},
		{"write via link into .sandbox", []shell.Effect{lit("echo"), w(shell.Write, "sb/x")}, Deny, ruleSelf},
		{"write dev null", []shell.Effect{lit("echo"), w(shell.Write, "/dev/null")}, Allow, ""},
		{"write dynamic", []shell.Effect{lit("echo"), {Kind: shell.Write, Path: "$F", Dynamic: true}}, Escalate, ruleDynamic},
		{"read ssh", []shell.Effect{lit("cat", "~/.ssh/id_rsa"), w(shell.Read, "~/.ssh/id_rsa")}, Escalate, "~/.ssh/"},
		{"read env", []shell.Effect{lit("cat", ".env"), w(shell.Read, ".env")}, Escalate, "/**/.env*"},
		{"read state dir", []shell.Effect{lit("cat"), w(shell.Read, filepath.Join(env.state, "key"))}, Deny, ruleSelf},
		{"word names .sandbox", []shell.Effect{lit("ls", ".sandbox")}, Deny, ruleSelf},
		{"word names .SANDBOX.", []shell.Effect{lit("ls", "x/.SANDBOX./y")}, Deny, ruleSelf},
		{"option names .sandbox", []shell.Effect{lit("grep", "--file=.sandbox/x")}, Deny, ruleSelf},
		{"word reaches state dir", []shell.Effect{lit("ls", env.state)}, Deny, ruleSelf},
		{"network allowed", []shell.Effect{{Kind: shell.Network, Host: "api.anthropic.com:443"}}, Allow, "api.anthropic.com:443"},
		{"network metadata", []shell.Effect{{Kind: shell.Network, Host: "169.254.169.254:80"}}, Deny, ruleMetadata},
		{"network other", []shell.Effect{{Kind: shell.Network, Host: "evil.com:443"}}, Escalate, ruleDefault},
		{"cd inside then read", []shell.Effect{lit("cd", "src"), lit("cat", "x"), w(shell.Read, "x")}, Allow, ""},
		{"cd out", []shell.Effect{lit("cd", ".."), lit("cd", ".."), lit("cat", "x"), w(shell.Read, "x")}, Escalate, ruleCD},
		{"cd unknown", []shell.Effect{dyn("cd", "$D"), lit("cat", "x")}, Escalate, ruleCD},
		{"cd home", []shell.Effect{lit("cd"), lit("cat", ".ssh/id"), w(shell.Read, ".ssh/id")}, Escalate, ""},
		{"cd then relocated write", []shell.Effect{lit("cd", ".git"), lit("echo"), w(shell.Write, ".git/hooks/pre-commit")}, Escalate, ruleGit},
		{"xargs open-ended", []shell.Effect{{Kind: shell.Exec, Args: lit("grep", "x").Args, OpenEnded: true}}, Allow, "grep **"},
		{"xargs open-ended rm", []shell.Effect{{Kind: shell.Exec, Args: lit("rm").Args, OpenEnded: true}}, Escalate, "rm -rf / **"},
		{"dotslash after cd", []shell.Effect{lit("cd", "sub"), lit("./gradlew", "test")}, Escalate, ruleDefault},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := e.decideEffects(tc.effs, "")
			if d.Decision != tc.want {
				t.Fatalf("decision = %v, want %v\n%s", d.Decision, tc.want, dump(d))
			}
			if tc.rule != "" && !hasRule(d, tc.want, tc.rule) {
				t.Errorf("no %v part with rule %q\n%s", tc.want, tc.rule, dump(d))
			}
		})
	}
}

func hasRule(d Decision, tier Tier, rule string) bool {
	for _, p := range d.Parts {
		if p.Decision == tier && p.Rule == rule {
			return true
		}
	}
	return false
}

func dump(d Decision) string {
	var b strings.Builder
	for _, p := range d.Parts {
		b.WriteString("  " + p.Decision.String() + " " + string(p.Trigger) + " " + p.Subject + " [" + p.Rule + "] " + p.Reason + "\n")
	}
	return b.String()
}

func TestEngineTriggers(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	tests := []struct {
		name string
		d    Decision
		want Tier
	}{
		{"write file", e.Write("src/a.go", ""), Allow},
		{"write abs in project", e.Write(filepath.Join(env.root, "a.go"), "/"), Allow},
		{"write outside", e.Write("/tmp/x", ""), Escalate},
		{"write sibling prefix", e.Write(env.root+"-evil/x", ""), Escalate},
		{"write .sandbox", e.Write(".sandbox/policy.yaml", ""), Deny},
		{"write .sandbox via ..", e.Write("src/../.sandbox/x", ""), Deny},
		{"write workflow", e.Write(".github/workflows/ci.yml", ""), Escalate},
		{"write .env.local", e.Write("sub/.env.local", ""), Escalate},
		{"write mcp.json", e.Write(".mcp.json", ""), Escalate},
		{"write claude", e.Write(".claude/settings.json", ""), Escalate},
		{"write state dir", e.Write(filepath.Join(env.state, "key"), ""), Deny},
		{"write relative cwd", e.Write("x", filepath.Join(env.root, "sub")), Allow},
		{"write NUL byte", e.Write("a\x00b", ""), Escalate},
		{"read file", e.Read("/etc/hosts", ""), Allow},
		{"read ssh", e.Read("~/.ssh/id_ed25519", ""), Escalate},
		{"read aws", e.Read(filepath.Join(env.home, ".aws/credentials"), ""), Escalate},
		{"read environ", e.Read("/proc/self/environ", ""), Escalate},
		{"read shadow", e.Read("/etc/shadow", ""), Escalate},
		{"read state key", e.Read(filepath.Join(env.state, "key"), ""), Deny},
		{"read .sandbox", e.Read(".sandbox/policy.yaml", ""), Allow},
		{"net anthropic", e.NetworkURL("https://api.anthropic.com/v1/messages"), Allow},
		{"net anthropic http", e.NetworkURL("http://api.anthropic.com/"), Escalate},
		{"net hostport", e.Network("api.openai.com:443"), Allow},
		{"net other", e.NetworkURL("https://example.com"), Escalate},
		{"net metadata", e.NetworkURL("http://169.254.169.254/latest/meta-data"), Deny},
		{"net metadata decimal", e.NetworkURL("http://2852039166/"), Deny},
		{"net metadata v6", e.NetworkURL("http://[fd00:ec2::254]/"), Deny},
		{"net metadata google", e.NetworkURL("http://metadata.google.internal./"), Deny},
		{"net bad url", e.NetworkURL("http://[::1/"), Escalate},
		{"net idn", e.NetworkURL("https://аpi.anthropic.com/"), Escalate},
		{"websearch", e.WebSearch("golang yaml"), Escalate},
		{"mcp sandbox", e.MCP("mcp__sandbox__run_privileged"), Allow},
		{"mcp other", e.MCP("mcp__github__create_issue"), Escalate},
		{"mcp bad name", e.MCP("mcp__x__y;rm"), Escalate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.d.Decision != tc.want {
				t.Errorf("decision = %v, want %v\n%s", tc.d.Decision, tc.want, dump(tc.d))
			}
			if len(tc.d.Parts) == 0 || len(tc.d.Reasons) == 0 {
				t.Errorf("decision without parts or reasons: %+v", tc.d)
			}
		})
	}
}

func TestNothingAccepted(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, nil)
	if e.Status() != StatusNothingAccepted {
		t.Errorf("status = %v", e.Status())
	}
	cases := map[string]Decision{
		"write":   e.Write("a.go", ""),
		"read":    e.Read("a.go", ""),
		"net":     e.Network("api.anthropic.com:443"),
		"mcp":     e.MCP("mcp__sandbox__x"),
		"git":     e.decideEffects([]shell.Effect{lit("git", "status")}, ""),
		"devnull": e.Write("/dev/null", ""),
	}
	for name, d := range cases {
		want := Escalate
		if name == "devnull" {
			want = Allow
		}
		if d.Decision != want {
			t.Errorf("%s: decision = %v, want %v", name, d.Decision, want)
		}
	}
	if d := e.Write(".sandbox/x", ""); d.Decision != Deny {
		t.Errorf("self-protection missing when nothing is accepted: %v", d.Decision)
	}
	if d := e.Network("169.254.169.254:80"); d.Decision != Deny {
		t.Errorf("metadata not denied when nothing is accepted: %v", d.Decision)
	}
}

func TestPolicyCannotRemoveSelfProtection(t *testing.T) {
	env := newTestEnv(t)
	src := []byte("version: 1\nwrite: {allow: ['**', '/**', '.sandbox/**']}\nread: {allow: ['/**']}\nnetwork: {allow: ['*', '169.254.169.254']}\n")
	e := env.engine(t, src)
	for name, d := range map[string]Decision{
		"write .sandbox": e.Write(".sandbox/policy.yaml", ""),
		"write state":    e.Write(filepath.Join(env.state, "x"), ""),
		"read state":     e.Read(filepath.Join(env.state, "key"), ""),
		"metadata":       e.Network("169.254.169.254:80"),
	} {
		if d.Decision != Deny {
			t.Errorf("%s: decision = %v, want deny", name, d.Decision)
		}
	}
}

func TestRecoverEscalates(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	e.sets = nil // every lookup now panics
	for name, d := range map[string]Decision{
		"write": e.Write("a", ""),
		"net":   e.Network("x.com:1"),
		"mcp":   e.MCP("mcp__a__b"),
	} {
		if d.Decision != Escalate || d.Parts[0].Rule != ruleInternal {
			t.Errorf("%s: %v %+v, want an internal-error escalation", name, d.Decision, d.Parts)
		}
	}
}

func TestCIEngine(t *testing.T) {
	env := newTestEnv(t)
	src := []byte("version: 1\nshell: {allow: ['git status **']}\nci:\n  write: {approve: ['dist/**'], deny: ['.git/**']}\n  network: {approve: ['proxy.golang.org:443']}\n")
	e := env.engine(t, src, Remembered{Trigger: Write, Tier: Allow, Pattern: "/tmp/**"})
	ci, err := e.CI()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		d    Decision
		want Tier
	}{
		"approved":          {ci.Write("dist/app.js", ""), Allow},
		"ci deny":           {ci.Write(".git/config", ""), Deny},
		"not approved":      {ci.Write("src/a.go", ""), Escalate},
		"no remembered":     {ci.Write("/tmp/x", ""), Escalate},
		"network approved":  {ci.Network("proxy.golang.org:443"), Allow},
		"self-protection":   {ci.Write(".sandbox/x", ""), Deny},
		"main rules absent": {ci.decideEffects([]shell.Effect{lit("git", "status")}, ""), Escalate},
	} {
		if c.d.Decision != c.want {
			t.Errorf("%s: %v, want %v\n%s", name, c.d.Decision, c.want, dump(c.d))
		}
	}
}
