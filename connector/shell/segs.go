package shell

// toSegs interprets one brace alternative: tilde prefix, globs, character
// classes and expansions. It records in v what it found.
func toSegs(toks []tok, v *wordVal) []seg {
	b := segBuilder{v: v}
	i := b.tilde(toks)
	for ; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tkDyn:
			b.push(segDyn, t.s)
			v.dynamic = true
		case t.kind == tkGlob:
			b.push(segStar, t.s)
			b.segs[len(b.segs)-1].ext = t.ext
			v.glob = true
		case t.kind == tkMeta && t.b == '*':
			b.push(segStar, "*")
			v.glob = true
		case t.kind == tkMeta && t.b == '?':
			b.push(segQuest, "?")
			v.glob = true
		case t.kind == tkMeta && t.b == '[':
			end, body, res := classEnd(toks, i)
			switch res {
			case classFound:
				b.push(segClass, body)
				v.glob = true
				i = end
				continue
			case classTooLong:
				b.push(segQuest, "?") // may be a class: over-approximate
				v.glob = true
				continue
			}
			b.lit(t.b)
		default:
			b.lit(t.b)
		}
	}
	b.flush()
	if len(b.segs) == 0 {
		b.segs = append(b.segs, seg{kind: segLit})
	}
	return b.segs
}

type segBuilder struct {
	v    *wordVal
	segs []seg
	buf  []byte
}

func (b *segBuilder) lit(c byte) { b.buf = append(b.buf, c) }

func (b *segBuilder) flush() {
	if len(b.buf) > 0 {
		b.segs = append(b.segs, seg{kind: segLit, text: string(b.buf)})
		b.buf = b.buf[:0]
	}
}

func (b *segBuilder) push(k segKind, text string) {
	b.flush()
	b.segs = append(b.segs, seg{kind: k, text: text})
}

// tilde handles an unquoted leading ~: "~" and "~/..." stay literal (the
// policy expands them to the home directory); "~user", "~+" and "~-" are
// expansions of unknown value. It returns the index of the next token.
func (b *segBuilder) tilde(toks []tok) int {
	if len(toks) == 0 || toks[0].kind != tkMeta || toks[0].b != '~' {
		return 0
	}
	end := 1
	for end < len(toks) && !(toks[end].kind == tkMeta && toks[end].b == '/') {
		end++
	}
	if end == 1 {
		b.lit('~')
		return 1
	}
	name := make([]byte, 0, end)
	for _, t := range toks[:end] {
		if t.kind != tkMeta && t.kind != tkChar {
			return 0 // "~$x" is not a tilde prefix
		}
		name = append(name, t.b)
	}
	b.push(segDyn, string(name))
	b.v.dynamic = true
	return end
}

// maxClass bounds the scan for the ] of a bracket expression, so that a
// word of many [ stays linear.
const maxClass = 256

type classResult int

const (
	classNone    classResult = iota // a literal [
	classFound                      // a bracket expression
	classTooLong                    // the scan gave up
)

// classEnd finds the ] closing the bracket expression that opens at i. The
// body keeps a leading ! or ^ (negation) and is reported as written.
func classEnd(toks []tok, i int) (int, string, classResult) {
	if len(toks)-i > maxClass {
		toks = toks[:i+maxClass]
		end, body, ok := classScan(toks, i)
		if !ok {
			return 0, "", classTooLong
		}
		return end, body, classFound
	}
	end, body, ok := classScan(toks, i)
	if !ok {
		return 0, "", classNone
	}
	return end, body, classFound
}

func classScan(toks []tok, i int) (end int, body string, ok bool) {
	j := i + 1
	if j < len(toks) && toks[j].kind == tkMeta && (toks[j].b == '!' || toks[j].b == '^') {
		j++
	}
	if j < len(toks) && toks[j].b == ']' && toks[j].kind != tkDyn {
		j++ // a ] right after [ or [! is part of the class
	}
	for ; j < len(toks); j++ {
		t := toks[j]
		if t.kind == tkDyn || t.kind == tkGlob {
			return 0, "", false
		}
		if t.b == '[' && j+1 < len(toks) && isClassDelim(toks[j+1].b) {
			if k := posixClassEnd(toks, j); k > 0 {
				j = k
				continue
			}
		}
		if t.kind == tkMeta && t.b == ']' {
			raw := make([]byte, 0, j-i)
			for _, x := range toks[i+1 : j] {
				raw = append(raw, x.b)
			}
			return j, string(raw), true
		}
		if t.b == '/' {
			return 0, "", false
		}
	}
	return 0, "", false
}

func isClassDelim(c byte) bool { return c == ':' || c == '.' || c == '=' }

// posixClassEnd returns the index of the ] closing a [:name:], [.x.] or
// [=x=] element that starts at j, or 0.
func posixClassEnd(toks []tok, j int) int {
	d := toks[j+1].b
	for k := j + 2; k+1 < len(toks); k++ {
		if toks[k].b == d && toks[k+1].b == ']' {
			return k + 1
		}
	}
	return 0
}
