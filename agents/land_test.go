package agents

import (
	"errors"
	"strings"
	"testing"
)

// TestLandingCheck: every field of an approved land is checked before
// git sees it: full commit ids, a plain branch name, a known mode, an
// identity, a valid agent name.
func TestLandingCheck(t *testing.T) {
	t.Parallel()
	good := Landing{Name: "a1", Mode: Merge, Head: strings.Repeat("a", 40), Into: "main",
		Target: strings.Repeat("b", 40), Ident: "Lander <l@example.com>"}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Landing)
	}{
		{"short head", func(l *Landing) { l.Head = "abc123" }},
		{"rev as head", func(l *Landing) { l.Head = "HEAD~1" }},
		{"upper-case target", func(l *Landing) { l.Target = strings.Repeat("B", 40) }},
		{"option as branch", func(l *Landing) { l.Into = "--force" }},
		{"range as branch", func(l *Landing) { l.Into = "main..x" }},
		{"reflog as branch", func(l *Landing) { l.Into = "main@{1}" }},
		{"space in branch", func(l *Landing) { l.Into = "ma in" }},
		{"into its own branch", func(l *Landing) { l.Into = "sandbox/a1" }},
		{"mode", func(l *Landing) { l.Mode = "octopus" }},
		{"ident", func(l *Landing) { l.Ident = "nobody" }},
		{"name", func(l *Landing) { l.Name = "A/../b" }},
	} {
		l := good
		tc.edit(&l)
		if err := l.Check(); err == nil || !errors.Is(err, ErrLandUsage) && !errors.Is(err, ErrBadName) {
			t.Errorf("%s: Check = %v", tc.name, err)
		}
	}
}
