package policy

import (
	"strings"
	"testing"
)

const whyPolicy = `version: 1
shell:
  allow:
    - "ls **"
    - "grep **"
    - "echo **"
  escalate:
    - "git push **"
  deny:
    - "rm -rf / **"
write:
  allow:
    - "**"
read:
  allow: ["/**"]
`

// TestWhy: the responsible part and its narrowest allowing rule, which a
// policy with that rule added really allows (and never more than the
// exact command), or the reason no rule can.
func TestWhy(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(whyPolicy))
	tests := []struct {
		script, cwd string
		jailed      bool
		allow       string // "" when no rule can
		noRule      string // in NoRule when allow is ""
	}{
		{script: "node x.js", allow: `"node x.js"`},
		{script: "node x.js", jailed: true, allow: `{pattern: "node x.js", jailed: true}`},
		{script: "ls && make -j4 build", allow: `"make -j4 build"`},
		{script: "git push origin main", noRule: "escalate rule `git push **` wins"},
		{script: "rm -rf / x", noRule: "deny rules win"},
		{script: "eval \"$X\"", noRule: "cannot see"},
		{script: "$CMD x", noRule: "cannot see"},
		{script: "cat $F", noRule: "not known until it runs"},
		{script: "grep x $F", noRule: "not known"},
		{script: "echo x > ~/out", allow: `"` + env.home + `/out"`},
	}
	for _, tc := range tests {
		eng := e
		if tc.jailed {
			eng = e.ForJail()
		}
		d := eng.Shell(tc.script, tc.cwd)
		w, ok := d.Why()
		if !ok {
			t.Errorf("%q: no why for %s", tc.script, dump(d))
			continue
		}
		if w.Allow != tc.allow || tc.allow == "" && !strings.Contains(w.NoRule, tc.noRule) {
			t.Errorf("%q (jailed %v): why %+v, want allow %q / no rule %q", tc.script, tc.jailed, w, tc.allow, tc.noRule)
		}
		if !strings.Contains(w.String(), w.Part.Subject) {
			t.Errorf("%q: String() %q does not name the part", tc.script, w.String())
		}
		if tc.allow != "" {
			checkWhyAllows(t, env, w, tc.script, tc.jailed)
		}
	}
	if _, ok := e.Shell("ls", "").Why(); ok {
		t.Error("an allowed decision has a why")
	}
}

// checkWhyAllows adds the proposed rule to the policy and checks that the
// part is then allowed (the rule is not one an escalate or deny rule
// overrides), and that it allows no other argument list.
func checkWhyAllows(t *testing.T, env testEnv, w Why, script string, jailed bool) {
	t.Helper()
	trig := string(w.Part.Trigger)
	src := strings.Replace(whyPolicy, trig+":\n  allow:\n", trig+":\n  allow:\n    - "+w.Allow+"\n", 1)
	e := env.engine(t, []byte(src))
	if jailed {
		e = e.ForJail()
	}
	if d := e.Shell(script, ""); d.Decision != Allow {
		t.Errorf("%q with %s allow %s added: %s", script, trig, w.Allow, dump(d))
	}
	if w.Part.Trigger == Shell {
		if d := e.Shell(script+" more", ""); d.Decision == Allow {
			t.Errorf("%q with %s added: a longer command is allowed too", script, w.Allow)
		}
		if jailed {
			if d := env.engine(t, []byte(src)).Shell(script, ""); d.Decision == Allow {
				t.Errorf("%q: the jailed proposal %s allows it unjailed", script, w.Allow)
			}
		}
	}
}
