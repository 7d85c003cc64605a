package policy

import "strings"

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
