package policy

import (
	"testing"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// TestGlobMayMatch: a glob argument stands for names that match it, so a
// deny or escalate rule's literal word meets it only where the glob can
// be that word. `rm -rf build/*` used to "may match" `rm -rf / **` and
// ask a human; `rm -rf /*`, a bracket that can hold / and the rule's wildcards still
// meet.
func TestGlobMayMatch(t *testing.T) {
	glob := func(words ...string) shell.Effect {
		ef := lit(words...)
		for i := range ef.Args {
			if i > 0 && containsGlobMeta(ef.Args[i].Text) {
				ef.Args[i].Dynamic, ef.Args[i].Glob = true, true
			}
		}
		return ef
	}
	for _, tc := range []struct {
		pat  string
		ef   shell.Effect
		want matchKind
	}{
		{"rm -rf / **", glob("rm", "-rf", "build/*"), noMatch},
		{"rm -rf / **", glob("rm", "-rf", "*.pyc"), noMatch},
		{"rm -rf ~ **", glob("rm", "-rf", "dist/*", "b"), noMatch},
		{"rm -rf / **", glob("rm", "-rf", "/*"), matchDynamic},
		{"rm -rf / **", glob("rm", "-rf", "?"), noMatch},
		{"rm -rf / **", glob("rm", "-rf", "[/]"), matchDynamic},
		{"rm -rf / **", glob("rm", "-rf", "x*", "/"), noMatch},
		{"rm -rf / **", glob("rm", "-rf", "/", "x*"), matchExact},
		{"rm * / **", glob("rm", "*", "/"), matchDynamic},
		{"git push **", glob("git", "pu*"), matchDynamic},
		{"git push **", glob("git", "status", "*.go"), noMatch},
		{"find ** -delete **", glob("find", ".", "-name", "*.o", "-delete"), matchExact},
		{"find ** -delete **", glob("find", ".", "-d*"), matchDynamic},
		{"rm -rf / **", glob("rm", "-rf", "@(/|x)"), matchDynamic},
	} {
		p, err := compileArgv(tc.pat)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.matchMay(tc.ef.Args, false); got != tc.want {
			t.Errorf("%q may-match %q = %v, want %v", tc.pat, quoteArgv(tc.ef.Args, false), got, tc.want)
		}
	}
}

func containsGlobMeta(s string) bool {
	for _, c := range s {
		if c == '*' || c == '?' || c == '[' || c == '(' {
			return true
		}
	}
	return false
}
