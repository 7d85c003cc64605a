package policy

import (
	"strings"
	"testing"
)

// TestBadInputEscalates feeds huge, deep, binary and deceptive scripts:
// each must come back (bounded work), without a panic, and not allowed.
func TestBadInputEscalates(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	tests := map[string]string{
		"1 MiB":              "echo " + strings.Repeat("a", 1<<20),
		"over 1 MiB":         strings.Repeat("git status;", 100000),
		"10,000 parts":       strings.Repeat("true; ", 10000),
		"10,000 pipes":       strings.Repeat("cat f | ", 10000) + "true",
		"1,000 substitution": strings.Repeat("$(", 1000) + "true" + strings.Repeat(")", 1000),
		"1,000 subshells":    strings.Repeat("(", 1000) + "true" + strings.Repeat(")", 1000),
		"1,000 bash -c":      nestedBashC(1000),
		"NUL":                "git status\x00; rm -rf /",
		"invalid UTF-8":      "git status \xff\xfe",
		"ANSI":               "git status \x1b[2K\x1b[1A",
		"bidi":               "git status #\u202e; rm -rf /",
		"zero width":         "git\u200b status",
		"10,000 words":       "git status " + strings.Repeat("x ", 10000),
	}
	for name, script := range tests {
		t.Run(name, func(t *testing.T) {
			d := e.Shell(script, "")
			if d.Decision == Allow && name != "10,000 words" {
				t.Errorf("allowed:\n%s", dump(d))
			}
			if len(d.Parts) > maxParts || len(d.Reasons) > maxReasons+1 {
				t.Errorf("unbounded decision: %d parts, %d reasons", len(d.Parts), len(d.Reasons))
			}
		})
	}
	argv := make([]string, maxArgvWords+1)
	for i := range argv {
		argv[i] = "x"
	}
	if d := e.Argv(append([]string{"git", "status"}, argv...), ""); d.Decision == Allow {
		t.Error("argv over the word limit allowed")
	}
}

func nestedBashC(n int) string {
	s := "curl x"
	for i := 0; i < n && len(s) < 1<<16; i++ {
		s = "bash -c " + quoteWord(s)
	}
	return s
}
