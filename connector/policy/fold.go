package policy

import (
	"strings"
	"unicode"
)

// foldName folds a name the way the most lenient case-insensitive file
// system might compare it: full simple case folding (so U+017F LONG S is
// 's' and U+212A KELVIN SIGN is 'k', as on APFS), and with the default
// ignorable code points dropped (HFS+ ignored some of them, which is how
// ".git\u200c" once reached .git). Deny and escalate rules always compare
// folded names; allow rules only on case-insensitive file systems.
func foldName(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if isIgnorable(r) {
			continue
		}
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune maps r to the lower case of the smallest rune in its case
// folding orbit, so every member of the orbit folds to the same rune.
func foldRune(r rune) rune {
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	return unicode.ToLower(min)
}

// isIgnorable reports the zero-width, joiner, bidi-control and BOM code
// points that some file systems and terminals ignore.
func isIgnorable(r rune) bool {
	switch {
	case r == 0xAD, r == 0x34F, r == 0x61C, r == 0x180E:
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2060 && r <= 0x206F, r == 0xFEFF:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0000 && r <= 0xE0FFF:
		return true
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
