package shell

import (
	"regexp"
	"strings"
	"unicode"
)

// A pattern that a program matches names with (find -name/-path/-regex,
// rg -g, grep --include, git pathspecs, tar --exclude, tree -I) only
// chooses among the names the program walks anyway: `find . -name '*'`
// lists no more than `find .`, and `rg --glob '!node_modules/*'` searches
// less than `rg`. What such a pattern selects flows on through the
// program's output or action, and every consumer is judged on its own: an
// action of find (-exec, -delete, -fprint) escalates, and xargs or a loop
// fed by a listing has operands of unknown value, which escalate. So a
// generic pattern is no self-protection question. A pattern is one when it
// is written to pick the protected name out: `.s*`, `*sandbox*`,
// `./.sand*/x`, `.*box` as a regex. That is the test here: some component
// (or, for a regex, the whole path) matches the protected name and does
// not match a decoy of the same shape (".sandbox" -> ".qqqqqqq"), with at
// least two literal characters of its own (a lone `*x` or `?s*` names
// hardly anything, and what it feeds still escalates).

// MayTarget reports whether a glob that a program expands itself can be
// aimed at name: see above.
func MayTarget(pattern, name string) bool {
	if name == "" || !MayReach(pattern, name) {
		return false
	}
	if !strings.ContainsAny(pattern, "*?[{") {
		return true // literal: it names it
	}
	decoy := []rune(decoyOf(name))
	nameRunes := []rune(name)
	toks := make([]tok, len(pattern))
	for i := 0; i < len(pattern); i++ {
		toks[i] = tok{kind: tkMeta, b: pattern[i]}
	}
	alts, ok := expandBraces(toks)
	if !ok {
		alts = [][]tok{braceAsStar(toks)}
	}
	v := wordVal{}
	for _, a := range alts {
		for _, comp := range components(toSegs(a, &v)) {
			if literalBytes(comp) >= 2 && componentReaches(comp, name, nameRunes) &&
				!componentReaches(comp, string(decoy), decoy) {
				return true
			}
		}
	}
	return false
}

// decoyOf replaces every letter and digit of name with one it does not
// hold, keeping its dots and length: ".sandbox" -> ".qqqqqqq".
func decoyOf(name string) string {
	fill := 'q'
	for _, c := range "qzjx" {
		if !strings.ContainsRune(strings.ToLower(name), c) {
			fill = c
			break
		}
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return fill
		}
		return r
	}, name)
}

func literalBytes(comp []seg) int {
	n := 0
	for _, s := range comp {
		if s.kind == segLit {
			n += len(s.text)
		}
	}
	return n
}

// RegexMayTarget is MayTarget for find's -regex and -iregex, which match
// the whole path find prints (./a/b) with an Emacs regular expression (or
// the -regextype's). The regex is tried on paths that hold name and on
// the same paths with the decoy; one that does not compile here is
// judged as a glob.
func RegexMayTarget(re, name string, emacs, fold bool) bool {
	src := re
	if emacs {
		src = emacsToRE2(re)
	}
	if fold {
		src = "(?i)" + src
	}
	rx, err := regexp.Compile("^(?:" + src + ")$")
	if err != nil {
		return MayTarget(re, name)
	}
	decoy := decoyOf(name)
	for _, shape := range []string{"./%s", "./%s/x", "./a/%s", "./a/%s/x", "%s", "./%s/a/b.c"} {
		hit := strings.ReplaceAll(shape, "%s", name)
		miss := strings.ReplaceAll(shape, "%s", decoy)
		if rx.MatchString(hit) && !rx.MatchString(miss) {
			return true
		}
	}
	return false
}

// emacsToRE2 turns an Emacs regex (find's default) into RE2 syntax: \( \)
// \| \{ \} are the operators, bare ( ) | { } are characters.
func emacsToRE2(re string) string {
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\' && i+1 < len(re) && strings.IndexByte("()|{}", re[i+1]) >= 0:
			b.WriteByte(re[i+1])
			i++
		case c == '\\' && i+1 < len(re):
			b.WriteByte(c)
			b.WriteByte(re[i+1])
			i++
		case strings.IndexByte("()|{}", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
