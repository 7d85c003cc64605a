package policy

import (
	"testing"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

func TestProposeArgvRoundTrip(t *testing.T) {
	argvs := [][]string{
		{"git", "push", "origin", "main"},
		{"echo", "a b", "it's", "*", "**", "?", `back\slash`, `"q"`, ""},
		{"npm", "run", "test:unit", "--", "--grep=x y"},
	}
	for _, argv := range argvs {
		ef := lit(argv...)
		pat := proposeArgv(ef)
		p, err := compileArgv(pat)
		if err != nil {
			t.Fatalf("%q: proposed %q does not compile: %v", argv, pat, err)
		}
		if p.matchAllow(ef.Args, false, false) != matchExact {
			t.Errorf("%q: proposed %q does not match it", argv, pat)
		}
		longer := lit(append(argv, "x")...)
		if p.matchAllow(longer.Args, false, false) != noMatch {
			t.Errorf("%q: proposed %q matches more", argv, pat)
		}
	}
	if got := proposeArgv(dyn("rm", "$X")); got != "" {
		t.Errorf("proposed %q for a dynamic command", got)
	}
	if got := proposeArgv(shell.Effect{Kind: shell.Exec, Args: lit("grep").Args, OpenEnded: true}); got != "" {
		t.Errorf("proposed %q for an open-ended command", got)
	}
	if got := proposeArgv(lit("echo", "\x1b[2J")); got != "" {
		t.Errorf("proposed %q for a control character", got)
	}
}

func TestProposePattern(t *testing.T) {
	tests := []struct {
		t       Trigger
		subject string
		want    string
	}{
		{Shell, "git push origin main", "git push origin main"},
		{Shell, "rm $X", ""},
		{Write, "/proj/a[1]*.go", `/proj/a\[1\]\*.go`},
		{Write, "relative", ""},
		{Network, "example.com:443", "example.com:443"},
		{Network, "bad host", ""},
		{MCP, "mcp__github__get_issue", "mcp__github__get_issue"},
	}
	for _, tc := range tests {
		if got := ProposePattern(tc.t, tc.subject); got != tc.want {
			t.Errorf("ProposePattern(%s, %q) = %q, want %q", tc.t, tc.subject, got, tc.want)
		}
	}
	// The proposed path pattern matches exactly that path.
	p, _ := compilePath(`/proj/a\[1\]\*.go`)
	b := p.bind(nil, nil)
	if segs := pathSegments("/proj/a[1]*.go"); !b.match(segs, segs, false) {
		t.Error("escaped path does not match itself")
	}
	if segs := pathSegments("/proj/a1x.go"); b.match(segs, segs, false) {
		t.Error("escaped path matches another")
	}
}

func TestQuoteWord(t *testing.T) {
	tests := map[string]string{
		"plain":   "plain",
		"":        "''",
		"a b":     "'a b'",
		"it's":    `'it'"'"'s'`,
		"\x1b[2J": `$'\x1b[2J'`,
		"\xff":    `$'\xff'`,
		"a\u202e": `$'a\u202e'`,
	}
	for in, want := range tests {
		if got := quoteWord(in); got != want {
			t.Errorf("quoteWord(%q) = %s, want %s", in, got, want)
		}
	}
}
