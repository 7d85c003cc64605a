package policy

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestCacheRoundTrip(t *testing.T) {
	src := string(DefaultYAML()) + "ci:\n  shell: {approve: [\"npm ci\"], deny: [\"git push **\"]}\n" +
		"limits: {memory: 4GiB, pids: 70, cpu: 150%}\nbroker: {env: [PATH]}\nhook: {wait: 90s}\n" +
		"agents: {setup: npm ci, test: make test, notify: {webhook: \"https://h.example/w\"}}\n" +
		"mcp:\n  deny: [{pattern: \"mcp__x__*\", reason: \"tab\\there, quote \\\" and é\"}]\n"
	src = strings.Replace(src, "\nmcp:\n  allow:\n    # sandbox's own MCP server: its tools are the way to ask a human.\n    - \"mcp__sandbox__*\"\n", "\n", 1)
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	data, err := EncodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := DecodeCache(data, "p.yaml", p.SHA256)
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
	if _, err := DecodeCache(data, "p.yaml", fmt.Sprintf("%x", sha256.Sum256([]byte("other")))); err == nil {
		t.Error("cache accepted for other bytes")
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
