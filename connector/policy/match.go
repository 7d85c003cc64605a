package policy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// wildcard is a compiled word glob: '*' matches any run of characters
// (including '/'), '?' exactly one character, and '\' escapes the next
// character. It is used for argv words and MCP tool names.
type wildcard struct {
	parts []wcPart
}

type wcPart struct {
	lit  string // literal text, or "" for a wildcard
	star bool   // '*'
	one  bool   // '?'
}

// compileWildcard compiles pat. A trailing lone backslash is an error.
func compileWildcard(pat string) (*wildcard, error) {
	if !strings.ContainsAny(pat, `*?\`) {
		if pat == "" {
			return &wildcard{}, nil
		}
		return &wildcard{parts: []wcPart{{lit: pat}}}, nil
	}
	w := &wildcard{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			w.parts = append(w.parts, wcPart{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '\\':
			if i+1 == len(pat) {
				return nil, errorf("trailing backslash in %q", pat)
			}
			i++
			lit.WriteByte(pat[i])
		case '*':
			flush()
			if n := len(w.parts); n == 0 || !w.parts[n-1].star {
				w.parts = append(w.parts, wcPart{star: true})
			}
		case '?':
			flush()
			w.parts = append(w.parts, wcPart{one: true})
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return w, nil
}

// isLiteral reports whether the wildcard has no '*' or '?'.
func (w *wildcard) isLiteral() (string, bool) {
	switch len(w.parts) {
	case 0:
		return "", true
	case 1:
		return w.parts[0].lit, !w.parts[0].star && !w.parts[0].one
	}
	return "", false
}

// match reports whether s matches the whole wildcard. It backtracks only
// to the last '*', so it runs in O(len(s) * len(parts)).
func (w *wildcard) match(s string) bool {
	if len(w.parts) == 1 && !w.parts[0].star && !w.parts[0].one {
		return s == w.parts[0].lit
	}
	return matchParts(w.parts, s)
}

func matchParts(parts []wcPart, s string) bool {
	starP, starS := -1, 0
	p, i := 0, 0
	for {
		if p < len(parts) {
			switch pp := parts[p]; {
			case pp.star:
				starP, starS = p, i
				p++
				continue
			case pp.one:
				if i < len(s) {
					_, size := decodeRune(s[i:])
					i += size
					p++
					continue
				}
			default:
				if strings.HasPrefix(s[i:], pp.lit) {
					i += len(pp.lit)
					p++
					continue
				}
			}
		} else if i == len(s) {
			return true
		}
		if starP < 0 || starS >= len(s) {
			return false
		}
		_, size := decodeRune(s[starS:])
		starS += size
		p, i = starP+1, starS
	}
}

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

// compileTool compiles an MCP tool-name pattern such as mcp__github__*.
// Names are ASCII letters, digits, '_', '-' and '.'; '*' and '?' are
// wildcards.
func compileTool(pat string) (*wildcard, error) {
	if pat == "" || strings.Trim(pat, toolChars+"*?") != "" {
		return nil, errorf("MCP tool pattern %q may hold only letters, digits, _ - . * ?", pat)
	}
	return compileWildcard(pat)
}

const toolChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."

// validTool reports whether a tool name is made of the allowed characters.
func validTool(name string) bool {
	return name != "" && len(name) <= 256 && strings.Trim(name, toolChars) == ""
}

// errorf makes a pattern error that wraps ErrBadPattern.
func errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadPattern, fmt.Sprintf(format, args...))
}

// decodeRune decodes one rune; an invalid byte counts as one character.
func decodeRune(s string) (rune, int) {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return r, 1
	}
	return r, size
}
