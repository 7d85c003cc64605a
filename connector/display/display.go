// Package display makes untrusted text safe to show to a human in a
// terminal or a web page: control characters, ANSI escape sequences, bidi
// overrides and isolates, zero-width and other invisible characters and
// invalid UTF-8 become visible escapes (\x1b, \u202e, \xff), so what the
// approver reads is what will run.
package display

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character a human could not see, or that
// could change how the rest of the text looks, written as an escape.
// Newlines and tabs are kept, so multi-line scripts stay readable; a
// carriage return is escaped (it could overwrite a line). Backslashes are
// left alone.
func Escape(s string) string { return escape(s, true) }

// EscapeLine is Escape for a single line: newlines and tabs are escaped as
// well (\n, \t), so the result never spans lines.
func EscapeLine(s string) string { return escape(s, false) }

func escape(s string, keepLayout bool) string {
	if isPlain(s, keepLayout) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLayout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && (r < 0x20 || r == 0x7f):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Invisible(r):
			writeU(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII (plus kept layout), the
// common case that needs no copy.
func isPlain(s string, keepLayout bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if keepLayout && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

func writeU(b *strings.Builder, r rune) {
	if r > 0xffff {
		fmt.Fprintf(b, `\U%08x`, r)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}

// Invisible reports whether r (not ASCII) must be escaped: C1 controls,
// format characters (bidi controls, zero-width characters, BOM, tags, soft
// hyphen), separators other than the ASCII space, private-use and
// unassigned code points, variation selectors, and the blank-looking
// letters (Hangul fillers, braille blank).
func Invisible(r rune) bool {
	if r < 0x80 {
		return false
	}
	switch {
	case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r):
		return true // C1, U+200B-U+200F, U+202A-U+202E, U+2060-U+2069, U+061C, U+FEFF, ...
	case unicode.Is(unicode.Zs, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return true // NBSP, en/em spaces, U+2028, U+2029, ideographic space
	case unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
		return true
	case unicode.Is(unicode.Variation_Selector, r):
		return true
	case !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S):
		return true // unassigned
	}
	return blankLooking[r]
}

// blankLooking are assigned, non-format characters that render as nothing.
var blankLooking = map[rune]bool{
	0x034f: true,                                           // combining grapheme joiner
	0x115f: true, 0x1160: true, 0x3164: true, 0xffa0: true, // Hangul fillers
	0x17b4: true, 0x17b5: true, // Khmer inherent vowels
	0x2800: true, // braille pattern blank
	0xfffc: true, // object replacement
}

// Truncate shortens s to at most max runes, ending with "…" when it cut.
// Use it on escaped text, so it never splits a character.
func Truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
