package policy

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const learnPolicy = `version: 1
# a comment that stays
shell:
  allow:
    - "ls **"
  escalate:
    - {pattern: "npm install **", reason: "installs packages"}
    - "git push **"
    - {pattern: "git ** --exec* **", reason: "runs a program"}
    - "rm **"
  deny:
    - "rm -rf / **"
write:
  allow:
    - "**"
network:
  allow:
    - api.anthropic.com:443
`

func approvals(trigger Trigger, t0 time.Time, propose ...string) []Approval {
	var out []Approval
	for i, p := range propose {
		out = append(out, Approval{Trigger: trigger, Subject: p, Propose: p, Time: t0.Add(time.Duration(i) * 24 * time.Hour)})
	}
	return out
}

func TestLearn(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(learnPolicy))
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	var in []Approval
	in = append(in, approvals(Shell, t0, "npm install left-pad", "npm install", "npm install react", "npm install")...)
	in = append(in, approvals(Shell, t0, "git push origin main", "git push origin main", "git push origin main")...)
	in = append(in, approvals(Shell, t0, "tree -p build", "tree -p build", "tree -p dist")...)
	in = append(in, approvals(Shell, t0, "rm -rf build", "rm -rf build", "rm -rf build")...)
	in = append(in, approvals(Network, t0, "registry.npmjs.org:443", "registry.npmjs.org:443", "registry.npmjs.org:443")...)
	in = append(in, approvals(Shell, t0, "ls -la", "ls -la", "ls -la")...)       // allowed now: nothing to learn
	in = append(in, approvals(Shell, t0, "touch once")...)                       // once: not repeated
	in = append(in, approvals(Shell, t0, "rm -rf /", "rm -rf /", "rm -rf /")...) // denied now: said so
	got := map[string]Suggestion{}
	for _, s := range e.Learn(in, 3) {
		got[s.Examples[0]] = s
	}
	check := func(example, pattern, replaces, note string, count int) {
		t.Helper()
		s, ok := got[example]
		if !ok {
			t.Errorf("%s: no suggestion (got %+v)", example, got)
			return
		}
		if s.Pattern != pattern || s.Replaces != replaces || s.Count != count || !strings.Contains(s.Note, note) || (note == "") != (s.Note == "") {
			t.Errorf("%s: %+v; want pattern %q replaces %q note %q count %d", example, s, pattern, replaces, note, count)
		}
	}
	check("npm install left-pad", "npm install **", "npm install **", "", 4)
	check("git push origin main", "git push origin main", "", "cannot say this", 3)
	check("tree -p build", "tree -p **", "", "", 3)
	check("rm -rf build", "rm -rf build", "", "cannot say this", 3)
	check("registry.npmjs.org:443", "registry.npmjs.org:443", "", "", 3)
	check("rm -rf /", "", "", "not proposed", 3)
	if _, ok := got["ls -la"]; ok {
		t.Error("suggested a rule for what the policy allows already")
	}
	if _, ok := got["touch once"]; ok {
		t.Error("suggested a rule for a single approval")
	}
	if s := got["npm install left-pad"]; s.Summary() != "shell `npm install **` approved 4 times in 3 days" {
		t.Errorf("summary %q", s.Summary())
	}
}

func TestAddRules(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(learnPolicy))
	t0 := time.Now()
	var in []Approval
	in = append(in, approvals(Shell, t0, "npm install a", "npm install b", "npm install c")...)
	in = append(in, approvals(Shell, t0, "sleep 5", "sleep 5", "sleep 5")...)
	in = append(in, approvals(Network, t0, "registry.npmjs.org:443", "registry.npmjs.org:443", "registry.npmjs.org:443")...)
	in = append(in, approvals(Write, t0, "/opt/x/a", "/opt/x/a", "/opt/x/a")...)
	sugg := e.Learn(in, 3)
	out, err := AddRules("policy.yaml", []byte(learnPolicy), sugg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"# a comment that stays", `    - {pattern: "npm install **", reason: "learned: approved 3 times in 2 days"}`,
		`    - {pattern: "registry.npmjs.org:443"`, "write:\n  allow:\n    - {pattern: \"/opt/x/a\""} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	if strings.Contains(s, `{pattern: "npm install **", reason: "installs packages"}`) {
		t.Errorf("the replaced escalate rule is still there:\n%s", s)
	}
	p, err := Parse("policy.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := New(env.root, p, Options{Home: env.home, StateDir: env.state})
	for _, argv := range [][]string{{"npm", "install", "z"}, {"sleep", "5"}} {
		if d := after.Argv(argv, ""); d.Decision != Allow {
			t.Errorf("%q after the change: %v %v", argv, d.Decision, d.Reasons)
		}
	}
	// What the change must not allow.
	for _, argv := range [][]string{{"git", "push", "origin", "main"}, {"rm", "-rf", "/"}, {"sleep", "6"}} {
		if d := after.Argv(argv, ""); d.Decision == Allow {
			t.Errorf("%q allowed after the change", argv)
		}
	}
	// A flow-style list is refused, not mangled.
	flow := "version: 1\nshell:\n  allow: [\"ls **\"]\n"
	if _, err := AddRules("policy.yaml", []byte(flow), sugg); !errors.Is(err, ErrNoRules) {
		t.Errorf("flow style: %v", err)
	}
	// Nothing writable: refused.
	if _, err := AddRules("policy.yaml", []byte(learnPolicy), nil); !errors.Is(err, ErrNoRules) {
		t.Errorf("nothing: %v", err)
	}
}
