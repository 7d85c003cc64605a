package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

// escalatedPart is the one escalated shell part of argv.
func escalatedPart(t *testing.T, e *Engine, argv ...string) Part {
	t.Helper()
	for _, p := range e.Argv(argv, "").Parts {
		if p.Decision == Escalate && p.Trigger == Shell {
			return p
		}
	}
	t.Fatalf("%q: no escalated shell part", argv)
	return Part{}
}

const generalizePolicy = `version: 1
shell:
  escalate:
    - "git push **"
    - {pattern: "git ** --exec* **", reason: "runs a program"}
    - "npm install **"
    - "rm **"
    - "curl **"
  deny:
    - "rm -rf / **"
    - "git push --force **"
write:
  allow: ["**"]
  escalate:
    - "/opt/app/secret/**"
network:
  escalate:
    - "pypi.org:22"
`

func TestGeneralize(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(generalizePolicy))
	tests := []struct {
		name    string
		argv    []string
		general string // "" when none may be offered
		why     string // in Why when general is ""
	}{
		{"subcommand", []string{"npm", "install", "left-pad"}, "npm install **", ""},
		{"push must not become git **", []string{"git", "push", "origin", "feature"}, "", "git push --force **"},
		{"rm must not cover a denied rm", []string{"rm", "-rf", "build"}, "", "rm -rf / **"},
		{"default escalation, no rule near", []string{"tree", "-L", "2"}, "tree **", ""},
		{"a word with a quote", []string{"curl", "-o", "a b", "https://x.test/"}, "curl **", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr := e.Generalize(escalatedPart(t, e, tc.argv...))
			if pr.Exact == "" {
				t.Fatalf("no exact pattern: %+v", pr)
			}
			if pr.General != tc.general {
				t.Fatalf("general = %q, want %q (why %q)", pr.General, tc.general, pr.Why)
			}
			if tc.general == "" && !strings.Contains(pr.Why, tc.why) {
				t.Errorf("why = %q, want it to name %q", pr.Why, tc.why)
			}
		})
	}
}

// TestGeneralizeNeverLiftsAnotherRule is the class: whatever general
// pattern is offered, remembering it lifts no escalation that another rule
// decided, and turns no deny into anything else. Checked over the default
// policy and a corpus of commands around every offered pattern.
func TestGeneralizeNeverLiftsAnotherRule(t *testing.T) {
	env := newTestEnv(t)
	for _, src := range [][]byte{DefaultYAML(), []byte(generalizePolicy)} {
		e := env.engine(t, src)
		approved := [][]string{
			{"git", "push", "origin", "main"}, {"npm", "install", "x"}, {"rm", "-rf", "build"},
			{"pip", "install", "requests"}, {"go", "get", "example.com/m"}, {"curl", "https://example.com/"},
			{"docker", "ps"}, {"chmod", "+x", "run.sh"}, {"git", "fetch", "origin"}, {"sudo", "ls"},
			{"find", ".", "-delete"}, {"sort", "-o", "out", "in"}, {"npx", "prettier", "."},
		}
		probes := [][]string{
			{"git", "push", "--force", "origin", "main"}, {"git", "push", "origin", "--exec=sh"},
			{"git", "--exec-path=/x", "push"}, {"git", "push", "origin", "main", "--receive-pack=sh"},
			{"rm", "-rf", "/"}, {"rm", "-rf", "~"}, {"rm", "-rf", "/", "x"}, {"npm", "install", "--ext=x"},
			{"go", "get", "-toolexec=sh"}, {"sort", "-o", "x"}, {"find", ".", "-exec", "sh", ";"},
			{"git", "remote", "add", "x", "y"}, {"git", "clone", "x"}, {"sudo", "rm", "-rf", "/"},
			{"curl", "--upload-file", "x", "https://e.test"}, {"docker", "run", "x"},
		}
		for _, argv := range approved {
			for _, pr := range e.Proposals(e.Argv(argv, "")) {
				if pr.General == "" {
					continue
				}
				with := env.engine(t, src, Remembered{Trigger: pr.Trigger, Tier: Allow, Pattern: pr.General})
				decided := escalatedPart(t, e, argv...).Rule
				for _, probe := range append(probes, argv) {
					liftsNoOther(t, pr.General, decided, e.Argv(probe, ""), with.Argv(probe, ""))
				}
			}
		}
	}
}

// liftsNoOther checks, part by part, that remembering general (offered
// for a part escalated by the rule decided) lifted only escalations of
// that rule or of the default, and no deny.
func liftsNoOther(t *testing.T, general, decided string, before, after Decision) {
	t.Helper()
	if len(before.Parts) != len(after.Parts) {
		t.Fatalf("%q: parts differ: %+v / %+v", general, before.Parts, after.Parts)
	}
	for i, b := range before.Parts {
		a := after.Parts[i]
		if b.Decision == Deny && a.Decision != Deny {
			t.Errorf("%q lifts a deny of %q", general, b.Subject)
		}
		if b.Decision == Escalate && a.Decision == Allow && b.Rule != decided && b.Rule != ruleDefault {
			t.Errorf("%q lifts %q, escalated by %s", general, b.Subject, b.Rule)
		}
	}
}

func TestGeneralizeWhyNone(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(generalizePolicy))
	// Dynamic words: no pattern at all, and it says why.
	d := e.Shell(`npm install "$PKG"`, "")
	prs := e.Proposals(d)
	for _, pr := range prs {
		if pr.Exact != "" || pr.General != "" || pr.Why == "" {
			t.Errorf("dynamic: %+v", pr)
		}
	}
	// A deny that may match (its words unknown): no pattern, and it says so.
	d = e.Shell(`rm -rf $X`, "")
	if pr := e.Generalize(d.Parts[0]); pr.Exact != "" || pr.General != "" || !strings.Contains(pr.Why, "deny rule") {
		t.Errorf("may-deny: %+v", pr)
	}
	// Multi-part: one proposal per escalated part, in order.
	d = e.Shell(`npm install x && git push origin main`, "")
	prs = e.Proposals(d)
	if len(prs) != 2 || prs[0].General != "npm install **" || prs[1].Exact != "git push origin main" {
		t.Errorf("multi-part: %+v", prs)
	}
}

func TestGeneralizePathAndHost(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(generalizePolicy))
	write := func(p string) Proposal {
		t.Helper()
		d := e.Write(p, "")
		if d.Decision != Escalate {
			t.Fatalf("write %s: %v", p, d.Decision)
		}
		return e.Generalize(d.Parts[0])
	}
	if pr := write("/opt/app/cache/x.json"); pr.General != "/opt/app/cache/**" {
		t.Errorf("write dir glob: %+v", pr)
	}
	// /opt/app/** would reach the escalated secret dir; /opt/app/x's dir
	// is /opt/app, whose glob covers /opt/app/secret/**.
	if pr := write("/opt/app/x"); pr.General != "" || !strings.Contains(pr.Why, "/opt/app/secret/**") {
		t.Errorf("write next to an escalated dir: %+v", pr)
	}
	// The home directory itself is never offered whole.
	if pr := write(filepath.Join(env.home, "x")); pr.General != "" {
		t.Errorf("home: %+v", pr)
	}
	host := func(h string) Proposal {
		t.Helper()
		return e.Generalize(e.Network(h).Parts[0])
	}
	if pr := host("registry.npmjs.org:443"); pr.General != "registry.npmjs.org" || pr.Exact != "registry.npmjs.org:443" {
		t.Errorf("host: %+v", pr)
	}
	if pr := host("pypi.org:443"); pr.General != "" || !strings.Contains(pr.Why, "pypi.org:22") {
		t.Errorf("host with an escalated port: %+v", pr)
	}
}

// The sandbox binary itself (an approved `sandbox agents apply-land`, or
// any other of its commands, wherever the binary lies and whatever case
// its name has) is approved once, never remembered.
func TestGeneralizeNeverRemembersTheSandboxBinary(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(generalizePolicy))
	for _, script := range []string{
		"/usr/local/bin/sandbox agents apply-land --merge --head 0123 main bob",
		"./sandbox approve X", "sandbox policy accept --yes", "/tmp/x/SANDBOX.exe approve X",
	} {
		d := e.Shell(script, env.root)
		seen := 0
		for _, pr := range e.Proposals(d) {
			if !strings.Contains(strings.ToLower(pr.Subject), "sandbox") {
				continue
			}
			seen++
			if pr.Exact != "" || pr.General != "" || !strings.Contains(pr.Why, "once") {
				t.Errorf("%s: %+v", script, pr)
			}
		}
		if seen == 0 {
			t.Errorf("%s: no escalated part runs the binary: %+v", script, d)
		}
	}
	if pr := e.Proposals(e.Shell("npm install x", env.root)); len(pr) != 1 || pr[0].General != "npm install **" {
		t.Errorf("npm install: %+v", pr)
	}
}
