package shell

import (
	"strings"
	"testing"
)

// checkEscalates asserts a bounded result that contains an Opaque effect.
func checkEscalates(t *testing.T, name string, effects []Effect) {
	t.Helper()
	if len(effects) > MaxEffects {
		t.Errorf("%s: %d effects, cap is %d", name, len(effects), MaxEffects)
	}
	if !hasKind(effects, Opaque) {
		t.Errorf("%s: no Opaque effect in %d effects", name, len(effects))
	}
}

func TestBadInput(t *testing.T) {
	cases := map[string]string{
		"1 MiB":              "echo " + strings.Repeat("a", 1<<20),
		"just over the cap":  strings.Repeat("a", MaxScriptBytes+1),
		"10,000 parts":       strings.Repeat("ls;", 10000),
		"10,000 pipes":       strings.Repeat("ls|", 10000) + "ls",
		"1,000 $( levels":    strings.Repeat("$(", 1000) + "ls" + strings.Repeat(")", 1000),
		"1,000 ( levels":     strings.Repeat("(", 1000) + "ls" + strings.Repeat(")", 1000),
		"1,000 { levels":     strings.Repeat("{ ", 1000) + "ls" + strings.Repeat("; }", 1000),
		"1,000 if levels":    strings.Repeat("if true; then ", 1000) + "ls" + strings.Repeat("; fi", 1000),
		"1,000 arith levels": "echo $((" + strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000) + "))",
		"1,000 brace levels": "echo " + strings.Repeat("{a,", 1000) + "b" + strings.Repeat("}", 1000),
		"1,000 param levels": "echo " + strings.Repeat("${x:-", 1000) + "y" + strings.Repeat("}", 1000),
		"1,000 ` levels":     "echo " + strings.Repeat("$(echo ", 1000) + strings.Repeat(")", 1000),
		"brace bomb":         "echo " + strings.Repeat("{a,b}", 40),
		"sequence bomb":      "echo {1..100000000}",
		"sequence overflow":  "echo {-9223372036854775808..9223372036854775807}",
		"nested wrappers":    strings.Repeat("env ", 100) + "ls",
		"nested watch":       strings.Repeat("watch ", 40) + "ls",
		"NUL byte":           "git status\x00; rm -rf ~",
		"invalid UTF-8":      "echo \xff\xfe",
		"ANSI escape":        "echo \x1b[2Jgit status",
		"bidi override":      "echo \u202egit status",
		"zero-width":         "g\u200bit status",
		"BOM":                "\ufeffgit status",
		"line separator":     "ls\u2028rm",
		"C1 control":         "echo \u009bx",
		"huge heredoc":       "cat <<X\n" + strings.Repeat("line $(ls)\n", 5000) + "X\nrm",
		"brace words":        strings.Repeat("echo {a,b}{c,d}{e,f}{g,h}{i,j}{k,l} ", 5000),
		"nested loops":       strings.Repeat("for x in a; do ", 90) + strings.Repeat("ls;", 20000) + strings.Repeat(" done;", 90),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			checkEscalates(t, name, Analyze(in, testOpts))
		})
	}
}

func TestParseErrorsEscalate(t *testing.T) {
	for _, in := range []string{
		"if", "((", "$(", "case", `"`, "'", "cat <<", "|", "&& ls", "fi", "done", "}", "ls )",
		"for", "echo ${", "echo $((1 +", "[[ -f", "f() {", "echo `", "a=(", "ls >",
	} {
		t.Run(in, func(t *testing.T) {
			effects := Analyze(in, testOpts)
			if !hasKind(effects, Opaque) {
				t.Errorf("Analyze(%q) = %q, want an Opaque effect", in, briefs(effects))
			}
		})
	}
}

func TestPanicBecomesOpaque(t *testing.T) {
	testHook = func() { panic("boom") }
	t.Cleanup(func() { testHook = nil })
	effects := Analyze("ls", testOpts)
	if len(effects) != 1 || effects[0].Kind != Opaque {
		t.Fatalf("effects after a panic: %q", briefs(effects))
	}
}

func TestEffectCap(t *testing.T) {
	effects := Analyze(strings.Repeat("cat a b c d;", 3000), testOpts)
	if len(effects) != MaxEffects {
		t.Fatalf("%d effects, want exactly the cap %d", len(effects), MaxEffects)
	}
	if last := effects[len(effects)-1]; last.Kind != Opaque || last.Reason != "too many effects" {
		t.Fatalf("last effect %+v", last)
	}
}

func TestArgvBounds(t *testing.T) {
	big := make([]string, 0, 200000)
	for range 200000 {
		big = append(big, "x")
	}
	checkEscalates(t, "argv with 200,000 words", AnalyzeArgv(big, testOpts))
	checkEscalates(t, "argv with a huge word", AnalyzeArgv([]string{"echo", strings.Repeat("a", 1<<20)}, testOpts))
	checkEscalates(t, "argv with NUL", AnalyzeArgv([]string{"echo", "a\x00b"}, testOpts))
	checkEscalates(t, "argv with invalid UTF-8", AnalyzeArgv([]string{"echo", "\xff"}, testOpts))
}

func TestShellDepthCap(t *testing.T) {
	effects := Analyze(strings.Repeat("watch ", maxShellDepth+2)+"ls", testOpts)
	found := false
	for _, e := range effects {
		found = found || e.Kind == Opaque && e.Reason == "nested shells too deep"
	}
	if !found {
		t.Fatalf("no depth escalation: %q", briefs(effects))
	}
}

// TestPathologicalBounded runs inputs whose naive analysis is exponential
// or quadratic; the go test timeout bounds them.
func TestPathologicalBounded(t *testing.T) {
	for _, in := range []string{
		"echo " + strings.Repeat("@(a|b|c)", 40),
		"echo ." + strings.Repeat("?(a|b)", 40),
		"echo " + strings.Repeat("{a,", 3000) + strings.Repeat("}", 3000),
		"echo " + strings.Repeat("{1..1}", 5000),
		"echo " + strings.Repeat("[", 50000),
		strings.Repeat("$((", 3000) + strings.Repeat("))", 3000),
	} {
		effects := Analyze(in, testOpts)
		checkWellFormed(t, in[:20], effects)
	}
}
