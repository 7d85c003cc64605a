package shell

import (
	"strconv"
	"strings"
)

func splitDots(s string) []string { return strings.Split(s, "..") }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func intPair(x, y string) (int64, int64, bool) {
	a, err1 := strconv.ParseInt(x, 10, 64)
	b, err2 := strconv.ParseInt(y, 10, 64)
	return a, b, err1 == nil && err2 == nil
}

// padWidth is the zero-padding width bash uses when either end has a
// leading zero.
func padWidth(x, y string) int {
	w := 0
	for _, s := range []string{x, y} {
		d := strings.TrimPrefix(s, "-")
		if len(d) > 1 && d[0] == '0' {
			w = max(w, len(s))
		}
	}
	return w
}

func intSequence(a, b, step int64, width int) (alts [][]tok, valid, fits bool) {
	// The distance fits in a uint64 for any two int64 values.
	var span uint64
	if b >= a {
		span = uint64(b) - uint64(a)
	} else {
		span = uint64(a) - uint64(b)
	}
	count := span / uint64(step)
	if count >= maxAlts {
		return nil, true, false
	}
	dir := step
	if b < a {
		dir = -step
	}
	for i, v := uint64(0), a; i <= count; i, v = i+1, v+dir {
		alts = append(alts, charToks(padInt(v, width)))
	}
	return alts, true, true
}

func padInt(v int64, width int) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	d := strings.TrimPrefix(s, "-")
	for len(d)+boolInt(neg) < width {
		d = "0" + d
	}
	if neg {
		return "-" + d
	}
	return d
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func charSequence(a, b byte, step int64) (alts [][]tok, valid, fits bool) {
	lo, hi := int64(a), int64(b)
	dir := step
	if hi < lo {
		dir = -step
	}
	for v := lo; dir > 0 && v <= hi || dir < 0 && v >= hi; v += dir {
		alts = append(alts, []tok{{kind: tkChar, b: byte(v)}})
	}
	return alts, true, len(alts) <= maxAlts
}

func charToks(s string) []tok {
	t := make([]tok, len(s))
	for i := 0; i < len(s); i++ {
		t[i] = tok{kind: tkChar, b: s[i]}
	}
	return t
}

// braceAsStar replaces every outermost brace group by a glob that matches
// anything: a superset of any expansion, used when expansion is too large.
func braceAsStar(toks []tok) []tok {
	groups := matchBraces(toks)
	if len(groups) == 0 {
		return toks
	}
	covered := make([]bool, len(toks))
	for _, g := range groups {
		for i := g.open; i <= g.close; i++ {
			covered[i] = true
		}
	}
	out := make([]tok, 0, len(toks))
	for i, t := range toks {
		if !covered[i] {
			out = append(out, t)
		} else if i == 0 || !covered[i-1] {
			out = append(out, tok{kind: tkGlob, s: "{...}"})
		}
	}
	return out
}
