package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

const jailedPolicy = `version: 1
shell:
  allow:
    - {pattern: "node **", jailed: true}
    - "go build **"
  escalate:
    - {pattern: "node evil.js", jailed: true, reason: "jailed-only escalation"}
  deny:
    - {pattern: "python3 bad.py", jailed: true}
write:
  allow: ["**"]
read:
  allow: ["/**"]
`

// TestJailedRules: a `jailed: true` rule counts on ForJail's engine only,
// through every way a policy reaches an engine (parsed, the signed text
// cache, the shims' compiled cache).
func TestJailedRules(t *testing.T) {
	env := newTestEnv(t)
	p, err := Parse("policy.yaml", []byte(jailedPolicy))
	if err != nil {
		t.Fatal(err)
	}
	text, err := EncodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := DecodeCache(text, p.File, p.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	fromCompiled, err := DecodeCompiled(EncodeCompiled(p))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		script          string
		unjailed, jaild Tier
	}{
		{"node script.js", Escalate, Allow},
		{"node evil.js", Escalate, Escalate},
		{"python3 bad.py", Escalate, Deny},
		{"go build ./...", Allow, Allow},
	}
	for name, pol := range map[string]*Policy{"parsed": p, "text cache": fromText, "compiled cache": fromCompiled} {
		e, err := New(env.root, pol, Options{Home: env.home, StateDir: env.state})
		if err != nil {
			t.Fatal(err)
		}
		j := e.ForJail()
		if e.Jailed() || !j.Jailed() || j.ForJail() != j || e.ForJail() != j {
			t.Fatalf("%s: Jailed() %v, ForJail().Jailed() %v", name, e.Jailed(), j.Jailed())
		}
		for _, tc := range cases {
			if d := e.Shell(tc.script, ""); d.Decision != tc.unjailed || d.Jailed {
				t.Errorf("%s: unjailed %q: %s (jailed=%v), want %s", name, tc.script, dump(d), d.Jailed, tc.unjailed)
			}
			d := j.Shell(tc.script, "")
			if d.Decision != tc.jaild || !d.Jailed {
				t.Errorf("%s: jailed %q: %s (jailed=%v), want %s", name, tc.script, dump(d), d.Jailed, tc.jaild)
			}
			for _, part := range d.Parts {
				if !part.Jailed || part.Effect == "" {
					t.Errorf("%s: jailed %q: part %+v lacks jailed or effect", name, tc.script, part)
				}
			}
		}
	}
}

func TestJailedRuleParse(t *testing.T) {
	for _, bad := range []string{
		"version: 1\nwrite:\n  allow:\n    - {pattern: \"**\", jailed: true}\n",
		"version: 1\nshell:\n  allow:\n    - {pattern: \"node **\", jailed: yes please}\n",
	} {
		if _, err := Parse("policy.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "jailed") {
			t.Errorf("Parse(%q) = %v, want an error about jailed", bad, err)
		}
	}
}

func TestDecisionJSONJailedEffect(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(jailedPolicy)).ForJail()
	b, err := json.Marshal(e.Shell("node script.js > out.txt", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"jailed":true`, `"effect":"exec node script.js"`, `"effect":"write ` + env.root + `/out.txt"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}
