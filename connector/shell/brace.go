package shell

import "strconv"

// Bounds of brace expansion. Beyond them a word is treated as a glob in
// which every brace group may be anything (an over-approximation).
const (
	maxAlts       = 64
	maxAltBytes   = 16 << 10
	maxBraceToks  = 4096
	maxBraceSteps = 256
)

// expandBraces performs bash brace expansion on unquoted braces. It reports
// false when the expansion exceeds the bounds.
func expandBraces(toks []tok) ([][]tok, bool) {
	if !hasMeta(toks, '{') {
		return [][]tok{toks}, true
	}
	if len(toks) > maxBraceToks {
		return nil, false
	}
	e := braceExpander{}
	ok := e.expand(toks)
	return e.out, ok
}

type braceExpander struct {
	out   [][]tok
	bytes int
	steps int
}

func (e *braceExpander) expand(toks []tok) bool {
	e.steps++
	if e.steps > maxBraceSteps {
		return false
	}
	open, close, alts, ok := firstBrace(toks)
	if !ok {
		return false
	}
	if open < 0 {
		e.out = append(e.out, toks)
		e.bytes += len(toks)
		return len(e.out) <= maxAlts && e.bytes <= maxAltBytes
	}
	for _, alt := range alts {
		next := make([]tok, 0, open+len(alt)+len(toks)-close-1)
		next = append(append(append(next, toks[:open]...), alt...), toks[close+1:]...)
		if !e.expand(next) {
			return false
		}
	}
	return true
}

func hasMeta(toks []tok, b byte) bool {
	for _, t := range toks {
		if t.kind == tkMeta && t.b == b {
			return true
		}
	}
	return false
}

// braceGroup is a matched pair of unquoted braces.
type braceGroup struct {
	open, close int
	commas      []int // positions of unquoted commas directly inside
}

// matchBraces pairs the unquoted braces of toks in one pass.
func matchBraces(toks []tok) []braceGroup {
	var groups []braceGroup
	var stack []braceGroup
	for i, t := range toks {
		if t.kind != tkMeta {
			continue
		}
		switch t.b {
		case '{':
			stack = append(stack, braceGroup{open: i})
		case ',':
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				top.commas = append(top.commas, i)
			}
		case '}':
			if len(stack) > 0 {
				g := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				g.close = i
				groups = append(groups, g)
			}
		}
	}
	return groups
}

// firstBrace finds the leftmost expandable group and its alternatives;
// open is -1 when there is none. ok is false when a sequence is too long.
func firstBrace(toks []tok) (open, close int, alts [][]tok, ok bool) {
	best := braceGroup{open: -1}
	var bestAlts [][]tok
	for _, g := range matchBraces(toks) {
		if best.open >= 0 && g.open > best.open {
			continue
		}
		a, valid, fits := groupAlts(toks, g)
		if !fits {
			return 0, 0, nil, false
		}
		if valid {
			best, bestAlts = g, a
		}
	}
	return best.open, best.close, bestAlts, true
}

// groupAlts returns the alternatives of g: its comma-separated parts, or the
// values of a {x..y[..n]} sequence.
func groupAlts(toks []tok, g braceGroup) (alts [][]tok, valid, fits bool) {
	if len(g.commas) == 0 {
		return sequenceAlts(toks[g.open+1 : g.close])
	}
	start := g.open + 1
	for _, c := range g.commas {
		alts = append(alts, toks[start:c])
		start = c + 1
	}
	alts = append(alts, toks[start:g.close])
	return alts, true, len(alts) <= maxAlts
}

// sequenceAlts expands the inside of {x..y} or {x..y..n}.
func sequenceAlts(inner []tok) (alts [][]tok, valid, fits bool) {
	text, plain := metaText(inner)
	if !plain {
		return nil, false, true
	}
	parts := splitDots(text)
	if len(parts) != 2 && len(parts) != 3 {
		return nil, false, true
	}
	step := int64(1)
	if len(parts) == 3 {
		n, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return nil, false, true
		}
		step = max(n, -n, 1)
	}
	if a, b, ok := intPair(parts[0], parts[1]); ok {
		return intSequence(a, b, step, padWidth(parts[0], parts[1]))
	}
	if len(parts[0]) == 1 && len(parts[1]) == 1 && isLetter(parts[0][0]) && isLetter(parts[1][0]) {
		return charSequence(parts[0][0], parts[1][0], step)
	}
	return nil, false, true
}

func metaText(toks []tok) (string, bool) {
	b := make([]byte, 0, len(toks))
	for _, t := range toks {
		if t.kind != tkMeta {
			return "", false
		}
		b = append(b, t.b)
	}
	return string(b), true
}
