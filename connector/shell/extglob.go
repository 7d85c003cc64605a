package shell

import "strings"

// expandExt replaces the extended globs @(a|b) and ?(a|b) of a component
// by their alternatives, for matching. *(...), +(...) and !(...) stay
// stars (an over-approximation), as does anything beyond maxAlts.
func expandExt(comp []seg, from int) [][]seg {
	for i := from; i < len(comp); i++ {
		ext := comp[i].ext
		if ext == "" || ext[0] != '@' && ext[0] != '?' || strings.ContainsAny(ext[1:], "()") {
			continue
		}
		alts := strings.Split(ext[1:], "|")
		if ext[0] == '?' {
			alts = append(alts, "")
		}
		var out [][]seg
		for _, a := range alts {
			next := append(append(append([]seg(nil), comp[:i]...), patternSegs(a)...), comp[i+1:]...)
			out = append(out, expandExt(next, i+len(patternSegs(a)))...)
			if len(out) > maxAlts {
				return [][]seg{comp}
			}
		}
		return out
	}
	return [][]seg{comp}
}

// patternSegs reads a glob pattern where every character may be special.
func patternSegs(p string) []seg {
	toks := make([]tok, len(p))
	for i := 0; i < len(p); i++ {
		toks[i] = tok{kind: tkMeta, b: p[i]}
	}
	return toSegs(toks, &wordVal{})
}
