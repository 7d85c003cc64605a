package shell

import "testing"

// TestPlainFormat: printf "$fmt" with fmt set to a plain literal in the
// script reads the format as the literal; any other value of fmt anywhere
// in the script (or none: the environment's) keeps the escalation, as
// printf -v with a subscript runs commands.
func TestPlainFormat(t *testing.T) {
	for _, tc := range []struct {
		in     string
		opaque bool
	}{
		{`fmt="%s: %d\n"; printf "$fmt" lines 42`, false},
		{`fmt='%-20s %s\n'; for f in a b; do printf "${fmt}" "$f" x; done`, false},
		{`printf "$fmt" x`, true},
		{`fmt=-v; printf "$fmt" 'a[$(id)]' x`, true},
		{`fmt='x'; fmt=$(cat f); printf "$fmt" x`, true},
		{`fmt='x'; read fmt; printf "$fmt" x`, true},
		{`fmt='x'; for i in 1; do printf "$fmt" x; fmt=-v; done`, true},
		{`fmt='x'; fmt+=-v; printf "$fmt" x`, true},
		{`fmt='a[$(id)]'; printf "$fmt" x`, true},
		{`printf "$fmt" x; fmt='%s'`, true},
		{`fmt='x'; declare fmt=-v; printf "$fmt" x`, true},
		{`fmt='x'; printf $fmt x`, true},
	} {
		effs := Analyze(tc.in, testOpts)
		if got := hasKind(effs, Opaque); got != tc.opaque {
			t.Errorf("Analyze(%q) opaque = %v, want %v: %q", tc.in, got, tc.opaque, briefs(effs))
		}
	}
}
