package shell

import (
	"strings"
)

// MayReach reports whether pattern, a path as written, could name a path
// component equal to name once braces and globs (*, ?, [...]) are expanded.
// Both / and \ separate components; case is folded; Windows forms
// (trailing dots and spaces, :stream suffixes, 8.3 short names) count.
// A glob reaches a dot-name even though bash does not match a leading dot
// with * by default (dotglob may be on).
func MayReach(pattern, name string) bool {
	if name == "" {
		return false
	}
	if !strings.ContainsAny(pattern, "*?[{") {
		return literalReaches(pattern, name)
	}
	toks := make([]tok, len(pattern))
	for i := 0; i < len(pattern); i++ {
		toks[i] = tok{kind: tkMeta, b: pattern[i]}
	}
	alts, ok := expandBraces(toks)
	if !ok {
		alts = [][]tok{braceAsStar(toks)}
	}
	v := wordVal{}
	nameRunes := []rune(name)
	for _, a := range alts {
		if altReaches(toSegs(a, &v), name, nameRunes) {
			return true
		}
	}
	return false
}

// altReaches checks every component of one alternative.
func altReaches(segs []seg, name string, nameRunes []rune) bool {
	for _, comp := range components(segs) {
		if componentReaches(comp, name, nameRunes) {
			return true
		}
	}
	return false
}

// components splits segments at literal / and \.
func components(segs []seg) [][]seg {
	var out [][]seg
	var cur []seg
	for _, s := range segs {
		if s.kind != segLit || !strings.ContainsAny(s.text, `/\`) {
			cur = append(cur, s)
			continue
		}
		rest := s.text
		for {
			i := strings.IndexAny(rest, `/\`)
			if i < 0 {
				break
			}
			if i > 0 {
				cur = append(cur, seg{kind: segLit, text: rest[:i]})
			}
			out = append(out, cur)
			cur = nil
			rest = rest[i+1:]
		}
		if rest != "" {
			cur = append(cur, seg{kind: segLit, text: rest})
		}
	}
	return append(out, cur)
}

// componentReaches reports whether one component may equal name. A
// component holding an expansion reaches only when it also holds at least
// two literal bytes that fit ($X/.sandbox, .sand$Y): a bare $X does not.
func componentReaches(comp []seg, name string, nameRunes []rune) bool {
	if len(comp) == 0 {
		return false
	}
	lits, dyn := 0, false
	for _, s := range comp {
		switch s.kind {
		case segLit:
			lits += len(s.text)
		case segDyn:
			dyn = true
		}
	}
	if dyn && lits < 2 {
		return false
	}
	for _, alt := range expandExt(comp, 0) {
		for _, variant := range windowsForms(alt) {
			// A form cut at ":" keeps the rule: "$f: " is no more
			// than $f.
			if dyn && literalBytes(variant) < 2 {
				continue
			}
			if globMatch(compile(variant), nameRunes) {
				return true
			}
		}
	}
	return !dyn && shortNameMatches(comp, name)
}

// windowsForms returns the component and the forms Windows would resolve
// to the same name: trailing dots and spaces removed, :stream cut off.
func windowsForms(comp []seg) [][]seg {
	forms := [][]seg{comp}
	last := comp[len(comp)-1]
	if last.kind == segLit {
		if t := strings.TrimRight(last.text, ". "); t != last.text {
			forms = append(forms, replaceLast(comp, t))
		}
	}
	for i, s := range comp {
		if s.kind == segLit {
			if k := strings.IndexByte(s.text, ':'); k >= 0 {
				cut := append(append([]seg(nil), comp[:i]...), seg{kind: segLit, text: s.text[:k]})
				forms = append(forms, cut)
				break
			}
		}
	}
	return forms
}

func replaceLast(comp []seg, text string) []seg {
	out := append([]seg(nil), comp...)
	out[len(out)-1] = seg{kind: segLit, text: text}
	return out
}

// shortNameMatches reports whether a literal component looks like the
// Windows 8.3 short name of name (".sandbox" -> "SANDBO~1").
func shortNameMatches(comp []seg, name string) bool {
	if len(comp) != 1 || comp[0].kind != segLit {
		return false
	}
	return shortNameIs(comp[0].text, name)
}

func shortNameIs(c, name string) bool {
	i := strings.IndexByte(c, '~')
	if i < 1 || i > 6 || i+1 >= len(c) || c[i+1] < '0' || c[i+1] > '9' {
		return false
	}
	// Compare c[:i] with the first i characters of name without its dots
	// and spaces, ignoring case.
	k := 0
	for j := 0; j < len(name) && k < i; j++ {
		if name[j] == '.' || name[j] == ' ' {
			continue
		}
		if !strings.EqualFold(c[k:k+1], name[j:j+1]) {
			return false
		}
		k++
	}
	return k == i
}
