package shell

import (
	"strings"
	"testing"
)

func TestMayReach(t *testing.T) {
	cases := []struct {
		pattern string
		want    bool
	}{
		{".sandbox", true},
		{"./.sandbox/policy.yaml", true},
		{"a/b/.sandbox", true},
		{`a\.sandbox\x`, true},
		{".sand*", true},
		{".s?ndbox", true},
		{".[s]andbox", true},
		{".[!t]andbox", true},
		{".[a-z]andbox", true},
		{".[A-Z]andbox", true},
		{".[[:lower:]]andbox", true},
		{".{sandbox,x}", true},
		{".sa{n,}dbox", true},
		{"{a,{b,.sandbox}}/x", true},
		{".s{a..c}ndbox", true},
		{"*", true},
		{".*", true},
		{"*/policy.yaml", true},
		{"????????", true},
		{".SANDBOX", true},
		{".sandbox.", true},
		{".sandbox  ", true},
		{".sandbox:stream", true},
		{"SANDBO~1", true},
		{"sandbo~1/x", true},
		{".ſandbox", true},
		{".sandbox" + strings.Repeat("{a,b}", 20), true}, // too large: braces count as *
		{strings.Repeat("{a,b}", 20) + "/.sandbox", true},
		{"{" + strings.Repeat("x,", 200) + ".sandbox}", true},
		{"sandbox", false},
		{".sandboxx", false},
		{".sandbox-old", false},
		{"x.sandbox", false},
		{"*.go", false},
		{".[!s]andbox", false},
		{".s?", false},
		{"?????????", false},
		{".sa{x,y}dbox", false},
		{"", false},
		{"/", false},
		{"..", false},
		{"SANDBOX~1", false},
	}
	for _, tc := range cases {
		t.Run(tc.pattern, func(t *testing.T) {
			if got := MayReach(tc.pattern, ".sandbox"); got != tc.want {
				t.Errorf("MayReach(%q) = %v, want %v", tc.pattern, got, tc.want)
			}
		})
	}
	if MayReach("anything", "") {
		t.Error("an empty name is reached")
	}
}

func TestProtectedWords(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"cat .sandbox/policy.yaml", true},
		{"ls .sand$Y", true},
		{"ls $X/.sandbox", true},
		{"ls ${X}box", true},
		{"ls ${X}x", false},
		{"ls $X", false},
		{`ls "$X"`, false},
		{"ls .$X", false},
		{"ls ${X:-.sandbox}", true},
		{"ls ${X/a/.sandbox}", true},
		{"ls ${X#.sandbox}", false},
		{"echo '.s*'", false},
		{"echo .s*", true},
		{"echo *.go", false},
		{"echo sandbox", false},
		{"cat <<X\nsee .sandbox/policy.yaml\nX", false},
		{"cat <<< .sandbox/policy.yaml", true},
		{"cat <<X\nsee the sandbox\nX", false},
		{"case x in .s*) ;; esac", false},
		{"[[ $x == .s* ]]", false},
		{"[[ -f .s* ]]", true},
		{"echo @(x|y)", false},
		{"echo .@(sandbox|y)", true},
		{"echo .?(s)andbox", true},
		{"echo .?(x)andbox", false},
		{"echo .?(s)sandbox", true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got := hasKind(Analyze(tc.in, testOpts), Protected)
			if got != tc.want {
				t.Errorf("Analyze(%q) protected = %v, want %v: %q", tc.in, got, tc.want, briefs(Analyze(tc.in, testOpts)))
			}
		})
	}
}

func TestNoProtectedNames(t *testing.T) {
	if hasKind(Analyze("rm -rf .sandbox *", Options{}), Protected) {
		t.Error("protected effect without protected names")
	}
}
