package display

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	cases := []struct{ in, line, text string }{
		{"ls -la", "ls -la", "ls -la"},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"a\r\nb", `a\r\nb`, "a\\r\nb"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"\x9b31m", `\x9b31m`, `\x9b31m`},       // a lone byte, invalid UTF-8
		{"\u009b31m", `\u009b31m`, `\u009b31m`}, // C1 CSI
		{"x\x00y\x7f", `x\x00y\x7f`, `x\x00y\x7f`},
		{"rm -rf /\u202e/tmp", `rm -rf /\u202e/tmp`, `rm -rf /\u202e/tmp`},
		{"\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u200e\u200f\u061c", `\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u200e\u200f\u061c`, ""},
		{"a\u200bb\u200cc\u200dd\u2060e\ufeff", `a\u200bb\u200cc\u200dd\u2060e\ufeff`, ""},
		{"nb\u00a0sp\u2028", `nb\u00a0sp\u2028`, ""},
		{"tag\U000e0041", `tag\U000e0041`, ""},
		{"vs\ufe0f", `vs\ufe0f`, ""},
		{"hangul\u3164", `hangul\u3164`, ""},
		{"\xff\xfe", `\xff\xfe`, ""},
		{"café 日本 😀 é", "café 日本 😀 é", "café 日本 😀 é"},
		{"\ufffd", "\ufffd", "\ufffd"},
	}
	for _, tc := range cases {
		if got := EscapeLine(tc.in); got != tc.line {
			t.Errorf("EscapeLine(%q) = %q, want %q", tc.in, got, tc.line)
		}
		want := tc.text
		if want == "" {
			want = tc.line
		}
		if got := Escape(tc.in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"日本語です", 3, "日本…"},
		{"x", 0, ""},
	} {
		if got := Truncate(tc.in, tc.max); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func FuzzEscapeLine(f *testing.F) {
	for _, s := range []string{"a\x1b[0m", "\u202e", "\xff", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := EscapeLine(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || Invisible(r) {
				t.Fatalf("%U left in %q", r, out)
			}
		}
		if strings.ContainsAny(Escape(s), "\r\x1b") {
			t.Fatalf("Escape kept CR or ESC")
		}
	})
}
