package display

import "testing"

func TestQuoteArgv(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{"git", "push", "origin", "main"}, "git push origin main"},
		{[]string{"echo", "a b"}, "echo 'a b'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"x", "-_./=:,+@%"}, "x -_./=:,+@%"},
		{[]string{"x", "$HOME", "a;b", "*", "é"}, "x '$HOME' 'a;b' '*' 'é'"},
	} {
		if got := QuoteArgv(tc.argv); got != tc.want {
			t.Errorf("QuoteArgv(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

// QuoteArg is what the hook command lines init writes quote the sandbox
// binary's path with.
func TestQuoteArg(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/sandbox": "/usr/bin/sandbox",
		"/a b/sandbox":     "'/a b/sandbox'",
		"/it's/sandbox":    `'/it'\''s/sandbox'`,
		"/x$(y)/sandbox":   "'/x$(y)/sandbox'",
		"":                 "''",
		"é":                "'é'",
	} {
		if got := QuoteArg(in); got != want {
			t.Errorf("QuoteArg(%q) = %q, want %q", in, got, want)
		}
	}
}
