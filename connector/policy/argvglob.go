package policy

import (
	"path"
	"strings"
)

// stepGlob consumes, for a may-match (deny and escalate rules), a word
// that is a glob: bash replaces it with one or more names that match it,
// or leaves it as it is. So a literal word of the rule can stand there
// only if the glob matches it: `rm -rf build/*` can never become
// `rm -rf /`, while `rm -rf /*` can. Without this, every glob argument
// "may" have matched every deny rule (rm -rf build/* asked a human as if
// it could be rm -rf /). A rule word that is itself a wildcard, or a glob
// this does not read exactly (extglob), may match anything, as before.
func (p *argvPattern) stepGlob(clean, dirty uint64, glob string) (uint64, uint64) {
	if !plainGlob(glob) {
		return p.stepDynamic(clean, dirty, true)
	}
	reach, cur := uint64(0), clean|dirty
	for cur != 0 {
		next := p.stepMatching(cur, glob)
		cur = next &^ reach
		reach |= next
	}
	return p.closure(clean & p.rest), reach
}

// stepMatching consumes one word known only to match glob.
func (p *argvPattern) stepMatching(set uint64, glob string) uint64 {
	var next uint64
	for i := 0; i < len(p.toks); i++ {
		if set&(1<<i) == 0 {
			continue
		}
		switch t := p.toks[i]; t.kind {
		case tokRest:
			next |= 1 << i
		case tokOne:
			next |= 1 << (i + 1)
		case tokLit:
			if globMayBe(glob, t.w) {
				next |= 1 << (i + 1)
			}
		}
	}
	return p.closure(next)
}

// globMayBe reports whether a word matching glob (or the glob's own text,
// which bash keeps when nothing matches) can match the rule's word.
func globMayBe(glob string, w *wildcard) bool {
	lit, ok := w.isLiteral()
	if !ok {
		return true
	}
	if lit == unescapeGlob(glob) {
		return true
	}
	m, err := path.Match(glob, lit)
	return m || err != nil
}

// plainGlob reports a glob of *, ? and [...] only, which path.Match reads
// as bash does (path.Match also lets * match a leading dot, which bash
// does not: more matches, never fewer).
func plainGlob(g string) bool {
	for i := 0; i+1 < len(g); i++ {
		if strings.IndexByte("@*+?!", g[i]) >= 0 && g[i+1] == '(' && (i == 0 || g[i-1] != '\\') {
			return false
		}
	}
	return !strings.ContainsAny(g, "{}")
}

func unescapeGlob(g string) string {
	if !strings.Contains(g, `\`) {
		return g
	}
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		if g[i] == '\\' && i+1 < len(g) {
			i++
		}
		b.WriteByte(g[i])
	}
	return b.String()
}
