package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// segKind is one piece of a word after static evaluation.
type segKind uint8

const (
	segLit   segKind = iota // literal text
	segStar                 // unquoted * or an extended glob: any string
	segQuest                // unquoted ?: any one character
	segClass                // unquoted [...]: one character of a class (text is the body)
	segDyn                  // an expansion of unknown value (text is its source)
)

type seg struct {
	kind segKind
	text string
	ext  string // segStar from an extended glob: operator and pattern
}

// wordVal is a shell word evaluated statically: one alternative per brace
// expansion, each a sequence of segments.
type wordVal struct {
	src         string  // the word as written
	alts        [][]seg // at least one
	dynamic     bool    // some segment is an expansion
	glob        bool    // some segment is a glob
	braces      bool    // brace expansion produced the alternatives
	tooBig      bool    // brace expansion was too large: alts over-approximate
	tildeQuoted bool    // the word starts with a quoted ~ (a directory named ~)
	opaque      string  // a part the evaluator does not know, if any
}

// cost is the work units a word's evaluation and checks take.
func (v *wordVal) cost() int {
	n := len(v.src)
	for _, a := range v.alts {
		n += len(a)
	}
	return n * (1 + len(v.alts))
}

// literal returns the word's value when it is one static string.
func (v *wordVal) literal() (string, bool) {
	if v.dynamic || v.glob || v.tooBig || len(v.alts) != 1 {
		return "", false
	}
	return joinLits(v.alts[0]), true
}

func joinLits(segs []seg) string {
	if len(segs) == 1 {
		return segs[0].text
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.text)
	}
	return b.String()
}

// evalWord evaluates w, a word of script, without walking the commands
// inside it.
func evalWord(w *syntax.Word, script string) wordVal {
	src := partSource(script, w)
	if text, ok := fastLiteral(w); ok {
		return wordVal{src: src, alts: [][]seg{{{kind: segLit, text: text}}}}
	}
	t := tokenizer{src: script}
	for _, p := range w.Parts {
		t.part(p)
	}
	return t.finish(src)
}

// fastLiteral handles the common word with no quoting subtleties, no
// escapes, globs, braces or tilde, without allocating per byte.
func fastLiteral(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		return plainPart(w.Parts[0], true)
	}
	var b strings.Builder
	for i, p := range w.Parts {
		s, ok := plainPart(p, i == 0)
		if !ok {
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

func plainPart(p syntax.WordPart, first bool) (string, bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		if strings.ContainsAny(p.Value, "\\*?[{") || first && strings.HasPrefix(p.Value, "~") {
			return "", false
		}
		return p.Value, true
	case *syntax.SglQuoted:
		if p.Dollar || first && strings.HasPrefix(p.Value, "~") {
			return "", false
		}
		return p.Value, true
	case *syntax.DblQuoted:
		if p.Dollar || len(p.Parts) > 1 {
			return "", false
		}
		if len(p.Parts) == 0 {
			return "", true
		}
		l, ok := p.Parts[0].(*syntax.Lit)
		if !ok || strings.ContainsRune(l.Value, '\\') || first && strings.HasPrefix(l.Value, "~") {
			return "", false
		}
		return l.Value, true
	}
	return "", false
}
