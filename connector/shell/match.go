package shell

import (
	"unicode"
	"unicode/utf8"
)

// item is one element of a component pattern.
type item struct {
	kind segKind // segLit (one rune), segStar, segQuest, segClass
	r    rune
	body string // class body
}

// compile flattens a component's segments into items; expansions count as
// stars.
func compile(segs []seg) []item {
	items := make([]item, 0, 16)
	for _, s := range segs {
		switch s.kind {
		case segLit:
			for _, r := range s.text {
				items = append(items, item{kind: segLit, r: r})
			}
		case segDyn, segStar:
			if len(items) == 0 || items[len(items)-1].kind != segStar {
				items = append(items, item{kind: segStar})
			}
		default:
			items = append(items, item{kind: s.kind, body: s.text})
		}
	}
	return items
}

// globMatch reports whether the items match name, folding case (file
// systems may be case-insensitive). It backtracks only to the last star,
// so it runs in O(len(items)*len(name)).
func globMatch(items []item, name []rune) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(items) && items[p].kind == segStar:
			star, mark = p, n
			p++
		case p < len(items) && itemMatches(items[p], name[n]):
			p++
			n++
		case star >= 0:
			p = star + 1
			mark++
			n = mark
		default:
			return false
		}
	}
	for p < len(items) && items[p].kind == segStar {
		p++
	}
	return p == len(items)
}

func itemMatches(it item, r rune) bool {
	switch it.kind {
	case segLit:
		return foldEq(it.r, r)
	case segQuest:
		return true
	case segClass:
		return classMatches(it.body, r)
	}
	return false
}

func foldEq(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// classMatches reports whether a bracket expression may match r. Named
// classes ([:alpha:] ...) are assumed to match: an over-approximation.
func classMatches(body string, r rune) bool {
	neg := len(body) > 0 && (body[0] == '!' || body[0] == '^')
	if neg {
		body = body[1:]
	}
	hit := false
	for i := 0; i < len(body); {
		if body[i] == '[' && i+1 < len(body) && isClassDelim(body[i+1]) {
			return true
		}
		lo, size := utf8.DecodeRuneInString(body[i:])
		i += size
		hi := lo
		if i+1 < len(body) && body[i] == '-' {
			hi, size = utf8.DecodeRuneInString(body[i+1:])
			i += 1 + size
		}
		if inFoldRange(lo, hi, r) {
			hit = true
		}
	}
	return hit != neg
}

func inFoldRange(lo, hi, r rune) bool {
	if r >= lo && r <= hi {
		return true
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= lo && f <= hi {
			return true
		}
	}
	return false
}
