package shell

import "testing"

// TestPatternArguments: a pattern a program matches names with is a
// self-protection question only when it is aimed at .sandbox. Everyday
// filters (exclusions, extensions, `*`) are not; patterns that pick
// .sandbox out still are, whatever tool, predicate or regex syntax
// carries them, and with or without an action.
func TestPatternArguments(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		// Everyday filters: no self-protection (they were denied).
		{`find . -name "*.js" -not -path "./node_modules/*"`, false},
		{`find . -type f -name '*.py' -not -path '*/.venv/*'`, false},
		{`find . -type f -size +1M -not -path './.git/*'`, false},
		{`find . -regex '.*\.\(ts\|tsx\)$'`, false},
		{`find . -iname '*test*' -type f`, false},
		{`find . -name '*' -print`, false},
		{`find . -name '.*'`, false},
		{`find src -name '*.go' -exec sed -i 's/a/b/g' {} +`, false},
		{`find . -name '*.orig' -delete`, false},
		{`rg -n "TODO|FIXME" --glob '!node_modules/*'`, false},
		{`rg -l x -g '*.tsx'`, false},
		{`rg --iglob '*.md' -i install`, false},
		{`grep -rn useState src/ --include="*.tsx"`, false},
		{`grep -r password --exclude-dir=node_modules --exclude='*.lock' src`, false},
		{`git ls-files ':!vendor'`, false},
		{`git ls-files -- '*.go' ':!:*_test.go'`, false},
		{`tree -a -I '.git|node_modules|target' -L 3`, false},
		// Aimed at .sandbox: still protected.
		{`find . -path './.sandbox/*' -delete`, true},
		{`find . -path './.sand*/*' -delete`, true},
		{`find . -name '.s*' -delete`, true},
		{`find . -name '.s*' -exec rm -rf {} +`, true},
		{`find . -iname '.SAND*' -exec cat {} \;`, true},
		{`find . -wholename '*/.sa?dbox/*' -delete`, true},
		{`find . -name '[.]sandbox' | xargs rm -rf`, true},
		{`find . -name '*sandbox*' | xargs rm -rf`, true},
		{`find . -name '.{sandbox,x}' -delete`, true},
		{`find . -regex '.*/\.sand.*' -delete`, true},
		{`find . -regex '.*box/.*' -delete`, true},
		{`find . -regextype posix-extended -regex '.*/\.s(a|b)ndbox/.*' -delete`, true},
		{`find . -iregex '.*/\.SANDBOX/.*' -delete`, true},
		{`rg --glob '.sand*' x`, true},
		{`rg -g '.s*/**' --hidden -l x | xargs rm`, true},
		{`rg --iglob '.SANDBOX/**' x`, true},
		{`grep -r x --include='.sand*' .`, true},
		{`git add -f '.s*'`, true},
		{`git ls-files ':(glob).sand*/**' | xargs rm`, true},
		{`tree -P '.sand*' -a`, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			effs := Analyze(tc.in, testOpts)
			if got := hasKind(effs, Protected); got != tc.want {
				t.Errorf("Analyze(%q) protected = %v, want %v: %q", tc.in, got, tc.want, briefs(effs))
			}
		})
	}
}

func TestMayTarget(t *testing.T) {
	for _, tc := range []struct {
		pat  string
		want bool
	}{
		{"*", false}, {".*", false}, {"!node_modules/*", false}, {"*/.venv/*", false},
		{"*.go", false}, {"?s*", false}, {"*x", false}, {".???????", false},
		{".s*", true}, {"*sandbox*", true}, {".sand*/x", true}, {"*/.SANDBOX", true},
		{".sa[nm]dbox", true}, {"{a,.sandbox}", true}, {".sandbox", true},
	} {
		if got := MayTarget(tc.pat, ".sandbox"); got != tc.want {
			t.Errorf("MayTarget(%q) = %v, want %v", tc.pat, got, tc.want)
		}
	}
}

// TestStreamCutKeepsTheRule: a word that is an expansion and a colon
// ("$f: ") was read as the Windows stream of whatever $f holds, so a loop
// printing "$f: ..." was denied as self-protection.
func TestStreamCutKeepsTheRule(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`for f in src/*.go; do echo "$f: $(wc -l < "$f")"; done`, false},
		{`echo "$x: done"`, false},
		{`cat "$d/.sandbox:x"`, true},
		{`cat "$d.sandbox::\$DATA"`, true},
	} {
		effs := Analyze(tc.in, testOpts)
		if got := hasKind(effs, Protected); got != tc.want {
			t.Errorf("Analyze(%q) protected = %v, want %v: %q", tc.in, got, tc.want, briefs(effs))
		}
	}
}
