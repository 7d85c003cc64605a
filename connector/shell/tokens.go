package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// tokKind classifies one byte (or expansion) of a word before brace and
// glob interpretation.
type tokKind uint8

const (
	tkChar tokKind = iota // a quoted or escaped byte: always literal
	tkMeta                // an unquoted byte: may be a glob, brace or tilde
	tkDyn                 // an expansion; s is its source
	tkGlob                // an extended glob; s is its source
)

type tok struct {
	kind tokKind
	b    byte
	s    string
	ext  string // extended glob: its operator and pattern ("@a|b")
}

// tokenizer turns the parts of a word into tokens.
type tokenizer struct {
	src    string
	toks   []tok
	opaque string
	quoted bool // the first token came from a quoted part
}

func (t *tokenizer) part(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
		t.unquoted(p.Value)
	case *syntax.SglQuoted:
		v := p.Value
		if p.Dollar {
			v = decodeANSIC(v)
		}
		t.quotedText(v)
	case *syntax.DblQuoted:
		t.dblQuoted(p)
	case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
		t.toks = append(t.toks, tok{kind: tkDyn, s: partSource(t.src, p)})
	case *syntax.ExtGlob:
		t.toks = append(t.toks, tok{kind: tkGlob, s: partSource(t.src, p), ext: p.Op.String()[:1] + p.Pattern.Value})
	default:
		t.opaque = "unknown word part"
		t.toks = append(t.toks, tok{kind: tkDyn, s: partSource(t.src, p)})
	}
}

// unquoted adds an unquoted literal: a backslash escapes the next byte.
func (t *tokenizer) unquoted(v string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			i++
			t.toks = append(t.toks, tok{kind: tkChar, b: v[i]})
			continue
		}
		t.toks = append(t.toks, tok{kind: tkMeta, b: c})
	}
}

func (t *tokenizer) quotedText(v string) {
	if len(t.toks) == 0 && v != "" {
		t.quoted = true
	}
	for i := 0; i < len(v); i++ {
		t.toks = append(t.toks, tok{kind: tkChar, b: v[i]})
	}
}

func (t *tokenizer) dblQuoted(q *syntax.DblQuoted) {
	if q.Dollar {
		// $"..." is translated through the locale: its value is not static.
		t.toks = append(t.toks, tok{kind: tkDyn, s: partSource(t.src, q)})
		return
	}
	for _, p := range q.Parts {
		if body, ok := heredocText(p); ok {
			t.quotedText(body)
			continue
		}
		lit, ok := p.(*syntax.Lit)
		if !ok {
			t.part(p)
			continue
		}
		t.quotedText(unescapeDouble(lit.Value))
	}
}

// unescapeDouble resolves the backslash escapes that double quotes honour.
func unescapeDouble(v string) string {
	if !containsByte(v, '\\') {
		return v
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		out = append(out, v[i])
	}
	return string(out)
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// partSource returns the source text of a node, clipped.
func partSource(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return "?"
	}
	return clip(src[s:e])
}

func (t *tokenizer) finish(src string) wordVal {
	v := wordVal{src: src, opaque: t.opaque, tildeQuoted: t.quoted && len(t.toks) > 0 && t.toks[0].b == '~'}
	alts, ok := expandBraces(t.toks)
	if !ok {
		v.tooBig = true
		alts = [][]tok{braceAsStar(t.toks)}
	}
	v.braces = len(alts) > 1
	v.alts = make([][]seg, len(alts))
	for i, a := range alts {
		v.alts[i] = toSegs(a, &v)
	}
	if v.tooBig {
		v.dynamic = true
	}
	return v
}
