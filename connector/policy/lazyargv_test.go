package policy

import (
	"reflect"
	"testing"
)

func TestLiteralName(t *testing.T) {
	tests := []struct {
		pat      string
		name     string
		hasSlash bool
		ok       bool
	}{
		{"git status **", "git", false, true},
		{"  ls   -la ", "ls", false, true},
		{"./gradlew build", "gradlew", true, true},
		{"/usr/bin/../bin/rm **", "/usr/bin/rm", true, true},
		{"git*", "", false, false},
		{"g?t status", "", false, false},
		{"*", "", false, false},
		{"'git' status", "", false, false},
		{`g\it status`, "", false, false},
		{"git\tstatus", "", false, false},
		{"gït status", "", false, false},
		{"", "", false, false},
		{"   ", "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.pat, func(t *testing.T) {
			name, slash, ok := literalName(tc.pat)
			if name != tc.name || slash != tc.hasSlash || ok != tc.ok {
				t.Errorf("literalName(%q) = %q, %v, %v; want %q, %v, %v", tc.pat, name, slash, ok, tc.name, tc.hasSlash, tc.ok)
			}
			if !ok {
				return
			}
			p, err := compileArgv(tc.pat)
			if err != nil {
				t.Fatalf("a pattern literalName accepts must compile: %v", err)
			}
			if p.nameLit != name || p.hasSlash != slash {
				t.Errorf("compileArgv: nameLit %q hasSlash %v; literalName: %q %v", p.nameLit, p.hasSlash, name, slash)
			}
		})
	}
}

// TestLazyRuleFailsClosed: a deferred pattern that does not compile
// matches as a deny or escalate rule and never allows.
func TestLazyRuleFailsClosed(t *testing.T) {
	r := &boundRule{Rule: &Rule{Trigger: Shell, Pattern: "", lazy: &lazyArgv{}}}
	never := func(*argvPattern) matchKind { t.Fatal("matched with a nil pattern"); return noMatch }
	for _, tc := range []struct {
		name string
		may  bool
		want matchKind
	}{{"deny or escalate", true, matchExact}, {"allow", false, noMatch}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.matchShell(tc.may, never); got != tc.want {
				t.Errorf("matchShell(may=%v) = %v, want %v", tc.may, got, tc.want)
			}
		})
	}
}

// pathRules is a policy whose shell rules name commands by path, by
// glob and with quotes, next to plain names.
const pathRules = `version: 1
shell:
  allow:
    - {pattern: "./gradlew build **"}
    - {pattern: "/usr/bin/git status **"}
    - {pattern: "git log **"}
    - {pattern: "'make' test"}
    - {pattern: "py* --version"}
  escalate:
    - {pattern: "/usr/local/bin/Tool **"}
    - {pattern: "curl **"}
  deny:
    - {pattern: "/usr/bin/../bin/rm -rf **"}
    - {pattern: "./scripts/Nuke.sh **"}
    - {pattern: "sudo **"}
    - {pattern: "sh?red **"}
`

// TestCachedEngineDecidesAsParsed: a policy decoded from its cache (shell
// rules compiled on first use) decides every adversarial and everyday
// script exactly as the parsed policy does.
func TestCachedEngineDecidesAsParsed(t *testing.T) {
	extra := []string{"Git Status", "/usr/bin/git push", "/usr/bin/git status", "git status", "./gradlew build x",
		"gradlew build", "/bin/rm -rf /", "RM -rf x", "rm.exe -rf x", "/usr/local/bin/tool x", "tool.exe x",
		"scripts/nuke.sh", "./scripts/NUKE.SH now", "make test", "python --version", "shred f", "SUDO ls"}
	for _, tc := range []struct {
		name string
		src  []byte
	}{{"default", DefaultYAML()}, {"paths", []byte(pathRules)}} {
		t.Run(tc.name, func(t *testing.T) {
			want, cached, compiled := parsedAndCached(t, tc.src)
			for _, script := range append(append(extra, everyday...), adversarial...) {
				w := want.Shell(script, "")
				if g := cached.Shell(script, ""); !reflect.DeepEqual(w, g) {
					t.Errorf("%q: parsed:\n%scached:\n%s", script, dump(w), dump(g))
				}
				if g := compiled.Shell(script, ""); !reflect.DeepEqual(w, g) {
					t.Errorf("%q: parsed:\n%sshims' compiled cache:\n%s", script, dump(w), dump(g))
				}
			}
		})
	}
}

// parsedAndCached builds the engine of src from its parse, from its
// decoded cache and from the shims' compiled cache; both caches must have
// deferred some shell rules.
func parsedAndCached(t *testing.T, src []byte) (parsed, cached, compiled *Engine) {
	t.Helper()
	env := newTestEnv(t)
	p, err := Parse("policy.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	data, err := EncodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeCache(data, p.File, p.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := DecodeCompiled(EncodeCompiled(p))
	if err != nil {
		t.Fatal(err)
	}
	deferred := 0 // the cache's shell lines left undecoded until a lookup
	for _, l := range c.lazy.lines {
		if l.deferred() {
			deferred++
		}
	}
	lazy := 0 // the compiled cache's shell rules filed on the first lookup of their name
	for _, l := range cp.lazy.lines {
		if l.deferred() {
			lazy++
		}
	}
	if deferred == 0 || lazy == 0 {
		t.Fatalf("no shell rule was deferred (cache %d, compiled %d)", deferred, lazy)
	}
	opts := Options{Home: env.home, StateDir: env.state, CaseInsensitive: func(string) bool { return false }}
	if parsed, err = New(env.root, p, opts); err != nil {
		t.Fatal(err)
	}
	if cached, err = New(env.root, c, opts); err != nil {
		t.Fatal(err)
	}
	if compiled, err = New(env.root, cp, opts); err != nil {
		t.Fatal(err)
	}
	return parsed, cached, compiled
}

// FuzzLiteralName: a pattern literalName accepts always compiles, to the
// name and slash it reported (so deferring it never hides an error).
func FuzzLiteralName(f *testing.F) {
	for _, s := range []string{"git status **", "./x y", "/a/../b *", "a\tb", "'q' x", "g*t", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pat string) {
		name, slash, ok := literalName(pat)
		if !ok {
			return
		}
		p, err := compileArgv(pat)
		if err != nil {
			t.Fatalf("%q: literalName accepts it but it does not compile: %v", pat, err)
		}
		if p.nameLit != name || p.hasSlash != slash {
			t.Fatalf("%q: compileArgv %q %v, literalName %q %v", pat, p.nameLit, p.hasSlash, name, slash)
		}
	})
}
