package policy

import "testing"

func TestWildcard(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"a*", "a", true},
		{"a*", "abc/d", true},
		{"*c", "abc", true},
		{"a*c", "abxc", true},
		{"a*c", "abxd", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "aéc", true},
		{`a\*c`, "a*c", true},
		{`a\*c`, "abc", false},
		{"*a*b*", "xxaxxbxx", true},
		{"*a*b*", "xxbxxaxx", false},
		{"mcp__github__*", "mcp__github__get_issue", true},
		{"mcp__github__*", "mcp__githubx__get", false},
		{"", "", true},
		{"", "x", false},
		{"*", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.pat+"~"+tc.s, func(t *testing.T) {
			w, err := compileWildcard(tc.pat)
			if err != nil {
				t.Fatal(err)
			}
			if got := w.match(tc.s); got != tc.want {
				t.Errorf("match(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
			}
		})
	}
	if _, err := compileWildcard(`a\`); err == nil {
		t.Error("trailing backslash accepted")
	}
}
