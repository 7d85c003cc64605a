package shell

import "strings"

// expandExt replaces the extended globs @(a|b) and ?(a|b) of a component
// by their alternatives, for matching. *(...), +(...) and !(...) stay
// stars (an over-approximation), as does anything beyond maxAlts.
func expandExt(comp []seg, from int) [][]seg {
	if !hasExt(comp) {
		return [][]seg{comp}
	}
	budget := maxAlts
	out, ok := expandExtBudget(comp, from, &budget)
	if !ok {
		return [][]seg{comp}
	}
	return out
}

func hasExt(comp []seg) bool {
	for _, s := range comp {
		if s.ext != "" {
			return true
		}
	}
	return false
}

// expandExtBudget expands while budget (calls and results) lasts.
func expandExtBudget(comp []seg, from int, budget *int) ([][]seg, bool) {
	*budget--
	if *budget < 0 {
		return nil, false
	}
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
			segs := patternSegs(a)
			next := append(append(append([]seg(nil), comp[:i]...), segs...), comp[i+1:]...)
			more, ok := expandExtBudget(next, i+len(segs), budget)
			if !ok || len(out)+len(more) > maxAlts {
				return nil, false
			}
			out = append(out, more...)
		}
		return out, true
	}
	return [][]seg{comp}, true
}

// patternSegs reads a glob pattern where every character may be special.
func patternSegs(p string) []seg {
	toks := make([]tok, len(p))
	for i := 0; i < len(p); i++ {
		toks[i] = tok{kind: tkMeta, b: p[i]}
	}
	return toSegs(toks, &wordVal{})
}
