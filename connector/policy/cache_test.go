package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCacheRoundTrip(t *testing.T) {
	src := string(DefaultYAML()) + "ci:\n  shell: {approve: [\"npm ci\"], deny: [\"git push **\"]}\n" +
		"limits: {memory: 4GiB, pids: 70, cpu: 150%}\nbroker: {env: [PATH]}\nhook: {wait: 90s}\n" +
		"mcp:\n  deny: [{pattern: \"mcp__x__*\", reason: \"tab\\there, quote \\\" and é\"}]\n"
	src = strings.Replace(src, "\nmcp:\n  allow:\n    # sandbox's own MCP server: its tools are the way to ask a human.\n    - \"mcp__sandbox__*\"\n", "\n", 1)
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	data, err := encodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := decodeCache(data, "p.yaml", p.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	q.materialize() // the deferred shell rules, as Engine.Policy gives them
	strip := func(p *Policy) *Policy {
		c := *p
		c.Rules, c.CI, c.lazy = map[Trigger]*RuleSet{}, map[Trigger]*RuleSet{}, nil
		for _, m := range []struct{ from, to map[Trigger]*RuleSet }{{p.Rules, c.Rules}, {p.CI, c.CI}} {
			for k, rs := range m.from {
				n := &RuleSet{}
				for _, pair := range []struct{ from, to *[]*Rule }{{&rs.Allow, &n.Allow}, {&rs.Escalate, &n.Escalate}, {&rs.Deny, &n.Deny}} {
					for _, r := range *pair.from {
						rc := *r
						rc.argv, rc.lazy, rc.path, rc.host, rc.tool = nil, nil, nil, nil, nil
						*pair.to = append(*pair.to, &rc)
					}
				}
				if len(n.Allow)+len(n.Escalate)+len(n.Deny) > 0 {
					m.to[k] = n
				}
			}
		}
		return &c
	}
	if a, b := strip(p), strip(q); !reflect.DeepEqual(a, b) {
		t.Errorf("cache round trip differs:\n%+v\n%+v", a, b)
	}
	if _, err := decodeCache(data, "p.yaml", sha256Hex([]byte("other"))); err == nil {
		t.Error("cache accepted for other bytes")
	}
}

func TestCacheTamperIgnored(t *testing.T) {
	f, st := project(t)
	writePolicy(t, f, polA)
	if err := Accept(f, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	dir, _ := st.FolderDir(f.Root)
	path := filepath.Join(dir, cacheName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no cache written at accept: %v", err)
	}
	// Loosen the cached rule without re-signing: ignored, YAML parsed.
	mustWrite(t, path, strings.Replace(string(data), `"**"`, `"/**"`, 1))
	e, _ := load(t, f, st)
	if d := e.Write("/tmp/x", ""); d.Decision != Escalate {
		t.Errorf("tampered cache applied: %v", d.Decision)
	}
	if d := e.Write("a.go", ""); d.Decision != Allow {
		t.Errorf("policy lost with a bad cache: %v", d.Decision)
	}
	// The load rewrote a good cache.
	if again, _ := os.ReadFile(path); string(again) != string(data) {
		t.Error("bad cache not replaced")
	}
}

// TestDefaultSettingsLine: defaultSettings is how the cache spells the
// settings of a policy with only a version, and decodes to that policy.
func TestDefaultSettingsLine(t *testing.T) {
	js, err := json.Marshal(settingsOf(&Policy{Version: Version}))
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != defaultSettings {
		t.Fatalf("Policy changed: update defaultSettings to\n%s", js)
	}
	var decoded Policy
	if err := json.Unmarshal(js, &decoded); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decoded, Policy{Version: Version}) {
		t.Fatalf("defaultSettings decodes to %+v", decoded)
	}
	p, err := Parse("policy.yaml", DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := json.Marshal(settingsOf(p)); string(js) != defaultSettings {
		t.Errorf("the default policy's settings are not the default line: %s", js)
	}
}
