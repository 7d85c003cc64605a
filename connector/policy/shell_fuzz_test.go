package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func FuzzShellDecision(f *testing.F) {
	for _, s := range adversarial {
		f.Add(s)
	}
	for _, s := range everyday {
		f.Add(s)
	}
	env := newTestEnv(f)
	e := env.engine(f, DefaultYAML())
	f.Fuzz(func(t *testing.T, script string) {
		d := e.Shell(script, "")
		if d.Decision < Allow || d.Decision > Deny || len(d.Parts) == 0 && d.Decision == Allow {
			t.Fatalf("bad decision %+v", d)
		}
		if d.Decision != Allow {
			return
		}
		parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
		if _, err := parser.Parse(strings.NewReader(script), ""); err != nil {
			t.Fatalf("allowed a script that does not parse (%v):\n%s", err, dump(d))
		}
		for _, p := range d.Parts {
			if p.Rule == ruleOpaque || p.Rule == ruleInternal {
				t.Fatalf("allowed with an opaque part:\n%s", dump(d))
			}
		}
	})
}
