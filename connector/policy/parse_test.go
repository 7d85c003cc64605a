package policy

import (
	"errors"
	"strings"
	"testing"
)

func TestParseDefault(t *testing.T) {
	p, err := Parse("policy.yaml", DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 1 || len(p.Rules[Shell].Allow) < 50 || len(p.Rules[Write].Escalate) < 10 {
		t.Errorf("default policy looks empty: %+v", p.Rules[Shell])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // substrings of the error, each "file:line: ..."
	}{
		{"syntax", "version: 1\nshell:\n  allow: [x\n", []string{"p.yaml:"}},
		{"unknown top key", "version: 1\nshel: {}\n", []string{`p.yaml:2: unknown key "shel"`}},
		{"unknown tier", "version: 1\nshell:\n  alow: []\n", []string{`p.yaml:3: unknown key "alow"`}},
		{"unknown rule key", "version: 1\nshell:\n  allow:\n    - {pattern: x, resaon: y}\n", []string{`p.yaml:4: unknown key "resaon"`}},
		{"bad shell pattern", "version: 1\nshell:\n  deny:\n    - \"** x\"\n", []string{"p.yaml:4: shell deny rule"}},
		{"bad path pattern", "version: 1\nwrite:\n  allow:\n    - a/../b\n", []string{"p.yaml:4: write allow rule"}},
		{"bad host", "version: 1\nnetwork:\n  allow:\n    - \"x:99999\"\n", []string{"p.yaml:4: network allow rule"}},
		{"bad mcp", "version: 1\nmcp:\n  allow:\n    - \"a b\"\n", []string{"p.yaml:4: mcp allow rule"}},
		{"dynamic on deny", "version: 1\nshell:\n  deny:\n    - {pattern: x, dynamic: true}\n", []string{"p.yaml:4: `dynamic`"}},
		{"dynamic not bool", "version: 1\nshell:\n  allow:\n    - {pattern: x, dynamic: yes please}\n", []string{"p.yaml:4:"}},
		{"no version", "shell: {}\n", []string{"p.yaml:1: missing `version: 1`"}},
		{"bad version", "version: 2\n", []string{"p.yaml:1: unsupported version"}},
		{"empty", "", []string{"p.yaml: empty policy file"}},
		{"two docs", "version: 1\n---\nversion: 1\n", []string{"only one YAML document"}},
		{"empty rule", "version: 1\nshell:\n  allow:\n    -\n", []string{"p.yaml:4: empty shell rule"}},
		{"rule list item", "version: 1\nshell:\n  allow:\n    - [a, b]\n", []string{"p.yaml:4: a shell rule is"}},
		{"dup key", "version: 1\nversion: 1\n", []string{"p.yaml:2:"}},
		{"dup rule key", "version: 1\nshell:\n  allow:\n    - {pattern: a, pattern: b}\n", []string{"p.yaml:4:"}},
		{"bad wait", "version: 1\nhook: {wait: soon}\n", []string{"p.yaml:2: hook.wait"}},
		{"bad env", "version: 1\nbroker: {env: [\"A-B\"]}\n", []string{"p.yaml:2: broker.env"}},
		{"wrong type", "version: 1\nshell: [a]\n", []string{"p.yaml:2:"}},
		{"bad webhook", "version: 1\nagents:\n  notify: {webhook: \"ftp://x/y\"}\n", []string{"p.yaml:3: agents.notify.webhook"}},
		{"webhook no host", "version: 1\nagents: {notify: {webhook: \"https:///x\"}}\n", []string{"p.yaml:2: agents.notify.webhook"}},
		{"agents unknown key", "version: 1\nagents: {setpu: x}\n", []string{`p.yaml:2: unknown key "setpu"`}},
		{"agents setup list", "version: 1\nagents: {setup: [npm, ci]}\n", []string{"p.yaml:2:"}},
		{"many errors", "version: 1\nfoo: 1\nshell:\n  allow:\n    - \"** x\"\n", []string{"p.yaml:2: unknown key", "p.yaml:5: shell allow rule"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Errorf("error does not wrap ErrInvalidPolicy: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseRuleForms(t *testing.T) {
	src := `version: 1
shell:
  allow:
    - git status **
    - {pattern: "ls **", reason: lists, dynamic: true}
ci:
  shell: {approve: ["npm ci"], deny: ["git push **"]}
limits: {memory: 4GiB, pids: 512, cpu: 200%}
broker: {env: [PATH, HOME]}
hook: {wait: 10m}
agents:
  setup: npm ci
  test: "go test ./..."
  notify: {webhook: "https://hooks.example/x"}
`
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ls := p.Rules[Shell].Allow[1]
	if ls.Pattern != "ls **" || ls.Reason != "lists" || !ls.Dynamic || ls.Line != 5 {
		t.Errorf("rule = %+v", ls)
	}
	if len(p.CI[Shell].Allow) != 1 || len(p.CI[Shell].Deny) != 1 {
		t.Errorf("ci = %+v", p.CI[Shell])
	}
	if p.Limits.PIDs != 512 || p.Broker.Env[1] != "HOME" || p.Hook.Wait.Minutes() != 10 {
		t.Errorf("limits/broker/hook = %+v %+v %+v", p.Limits, p.Broker, p.Hook)
	}
	if p.Agents != (Agents{Setup: "npm ci", Test: "go test ./...", Webhook: "https://hooks.example/x"}) {
		t.Errorf("agents = %+v", p.Agents)
	}
}

func FuzzLoad(f *testing.F) {
	// Small seeds: the fuzzer crawls on a 14 KB input such as the default
	// policy (which TestParseDefault covers).
	f.Add([]byte("version: 1\nshell: {allow: [\"git **\"], deny: [{pattern: x, reason: y}]}\n"))
	f.Add([]byte("version: 1\nshell:\n  allow:\n    - {pattern: \"ls **\", dynamic: true}\n  escalate: [\"git ** --out* **\"]\n" +
		"read: {escalate: [\"~/.ssh/\", \"/**/.env*\"]}\nmcp: {allow: [\"mcp__x__*\"]}\n" +
		"ci: {shell: {approve: [\"npm ci\"]}}\nlimits: {pids: 50}\nbroker: {env: [PATH]}\nhook: {wait: 1m}\n"))
	f.Add([]byte("version: 1\nwrite: {allow: ['**', '~/x', '/a/**/b']}\nnetwork: {allow: ['*.x.com:443', '10.0.0.0/8']}\n"))
	f.Add([]byte("version: 1\n&a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("error does not wrap ErrInvalidPolicy: %v", err)
			}
			return
		}
		if p.Version != Version {
			t.Fatalf("accepted version %d", p.Version)
		}
		for _, rs := range p.Rules {
			for _, list := range [][]*Rule{rs.Allow, rs.Escalate, rs.Deny} {
				for _, r := range list {
					if r.argv == nil && r.path == nil && r.host == nil && r.tool == nil {
						t.Fatalf("rule %q not compiled", r.Pattern)
					}
				}
			}
		}
	})
}
