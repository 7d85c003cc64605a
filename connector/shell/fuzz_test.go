package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

const internalError = "internal error in the shell analyzer"

// checkWellFormed asserts the invariants every result keeps.
func checkWellFormed(t *testing.T, in string, effects []Effect) {
	t.Helper()
	if len(effects) > MaxEffects {
		t.Fatalf("%d effects for %q", len(effects), in)
	}
	for _, e := range effects {
		if e.Kind < Exec || e.Kind > Protected {
			t.Fatalf("bad kind %d for %q", e.Kind, in)
		}
		if e.Kind == Exec && len(e.Args) == 0 {
			t.Fatalf("exec without args for %q", in)
		}
		if e.Reason == internalError {
			t.Fatalf("analyzer panicked on %q", in)
		}
		if len(e.Source) > maxSource+len("…") {
			t.Fatalf("source of %d bytes for %q", len(e.Source), in)
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range typicalCommands {
		f.Add(s)
	}
	for _, c := range adversarial {
		f.Add(c.in)
	}
	f.Add("cat <<X\n$(ls)\nX")
	f.Add("echo {a,b}{1..3} .s* @(x|y) $'\\x41' ~/x")
	f.Add("for ((i=0;i<3;i++)); do echo $((i)); done")
	f.Fuzz(func(t *testing.T, script string) {
		effects := Analyze(script, testOpts)
		checkWellFormed(t, script, effects)
		p := syntax.NewParser(syntax.Variant(syntax.LangBash))
		if _, err := p.Parse(strings.NewReader(script), ""); err != nil && !hasKind(effects, Opaque) {
			t.Fatalf("parse error %v but no Opaque effect for %q: %q", err, script, briefs(effects))
		}
		argv := strings.Fields(script)
		checkWellFormed(t, script, AnalyzeArgv(argv, testOpts))
		if len(script) < 256 {
			MayReach(script, ".sandbox")
		}
	})
}
