package policy

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestCachedEngineConcurrentLookups: goroutines sharing an engine decoded
// from the cache (the MCP server's, serve's) decode each command name's
// deferred rules once and decide as the parsed policy does.
func TestCachedEngineConcurrentLookups(t *testing.T) {
	want, cached, _ := parsedAndCached(t, DefaultYAML())
	scripts := append(append([]string{}, everyday...), adversarial[:40]...)
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(scripts))
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range scripts {
				s := scripts[(i+g*7)%len(scripts)]
				if w, c := want.Shell(s, ""), cached.Shell(s, ""); !reflect.DeepEqual(w, c) {
					errs <- s
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("%q: the cached engine decided otherwise", s)
	}
}

// TestCachedPolicyMaterialized: Engine.Policy gives every shell rule of a
// cached policy, in the parsed policy's order.
func TestCachedPolicyMaterialized(t *testing.T) {
	parsed, cached, compiled := parsedAndCached(t, DefaultYAML())
	_ = cached.Shell("git status", "") // some lines decoded by a lookup first
	_ = compiled.Shell("git status", "")
	p, c, cc := parsed.Policy().Rules[Shell], cached.Policy().Rules[Shell], compiled.Policy().Rules[Shell]
	for _, pair := range [][2][]*Rule{{p.Allow, c.Allow}, {p.Escalate, c.Escalate}, {p.Deny, c.Deny},
		{p.Allow, cc.Allow}, {p.Escalate, cc.Escalate}, {p.Deny, cc.Deny}} {
		if len(pair[0]) != len(pair[1]) {
			t.Fatalf("%d rules materialized, want %d", len(pair[1]), len(pair[0]))
		}
		for i := range pair[0] {
			if pair[0][i].Pattern != pair[1][i].Pattern || pair[0][i].Reason != pair[1][i].Reason || pair[0][i].Line != pair[1][i].Line {
				t.Errorf("rule %d: %q, want %q", i, pair[1][i].Pattern, pair[0][i].Pattern)
			}
		}
	}
}

// TestUndecodableCachedLineFailsClosed: a deferred line that does not
// decode (a signed cache cannot hold one, but the engine must not trust
// that) denies or escalates its command and never allows it.
func TestUndecodableCachedLineFailsClosed(t *testing.T) {
	env := newTestEnv(t)
	src := []byte("version: 1\nshell:\n  allow: [\"git status\"]\n  deny: [\"rm -rf **\"]\n")
	p, err := Parse("policy.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	data, err := EncodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	// break the line-number field of both shell lines: still deferred
	// (plain quoted pattern, literal name), no longer decodable
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 10 && f[2] == "shell" {
			f[5] = "x"
			line = strings.Join(f, "\t")
		}
		out = append(out, line)
	}
	c, err := DecodeCache([]byte(strings.Join(out, "\n")), p.File, p.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(env.root, c, Options{Home: env.home, StateDir: env.state})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Shell("git status", ""); d.Decision == Allow {
		t.Errorf("git status allowed by an undecodable rule: %s", dump(d))
	}
	if d := e.Shell("rm -rf x", ""); d.Decision != Deny {
		t.Errorf("rm -rf x: %s, want the undecodable deny rule to deny", dump(d))
	}
}

// TestUncompilableCachedRuleFailsClosed: a write rule of either cache
// (the signed one, the shims' compiled one) that does not compile when
// its index is built (neither cache can hold one) makes every write
// decision escalate as an internal error, and leaves the other triggers
// alone.
func TestUncompilableCachedRuleFailsClosed(t *testing.T) {
	env := newTestEnv(t)
	p, err := Parse("policy.yaml", []byte("version: 1\nshell:\n  allow: [\"git status\"]\nwrite:\n  allow: [\"src/**\"]\n  deny: [\"secrets/**\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compilePath("~bob/xxxxx"); err == nil {
		t.Fatal("the test's broken pattern compiles")
	}
	cached, err := EncodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, decode := range map[string]func() (*Policy, error){
		"signed cache": func() (*Policy, error) {
			return DecodeCache(bytes.Replace(cached, []byte(`"secrets/**"`), []byte(`"~bob/xxxxx"`), 1), p.File, p.SHA256)
		},
		"compiled cache": func() (*Policy, error) {
			return DecodeCompiled(bytes.Replace(EncodeCompiled(p), []byte("secrets/**"), []byte("~bob/xxxxx"), 1)) // same length
		},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := decode()
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(env.root, c, Options{Home: env.home, StateDir: env.state})
			if err != nil {
				t.Fatal(err)
			}
			if d := e.Write("src/a.go", env.root); d.Decision != Escalate || d.Parts[0].Rule != ruleInternal {
				t.Errorf("write: %s, want an internal-error escalation", dump(d))
			}
			if d := e.Shell("git status", env.root); d.Decision != Allow {
				t.Errorf("shell: %s, want the shell rules unaffected", dump(d))
			}
		})
	}
}
