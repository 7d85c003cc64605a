package policy

import (
	"math/bits"
	"path"
	"strings"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// maxPatternWords bounds a shell pattern so that the matcher's state set
// fits in a uint64.
const maxPatternWords = 63

// tokKind is the kind of one word of a shell pattern.
type tokKind uint8

const (
	tokLit  tokKind = iota // a literal word (or a word glob)
	tokOne                 // '*': exactly one word
	tokRest                // '**': zero or more words
)

type argvTok struct {
	kind tokKind
	w    *wildcard // tokLit: the word (literal or glob)
}

// argvPattern is a compiled shell rule: a command name and a sequence of
// word tokens, matched against the literal argv of a simple command.
type argvPattern struct {
	name     *wildcard // the command name, exact case
	nameFold *wildcard // lower-cased, for deny and escalate rules
	nameLit  string    // the literal name when it has no wildcard
	hasSlash bool      // the name is a path (./gradlew, /usr/bin/rm)
	local    bool      // the name is ./**: any program below the working directory
	toks     []argvTok
	rest     uint64 // bit i set when toks[i] is '**'
}

// compileArgv compiles a shell pattern such as `git push *` or
// `npm run **`. Words are split on blanks; single and double quotes and
// backslashes quote as in the shell, so `'*'` is a literal star.
func compileArgv(pat string) (*argvPattern, error) {
	words, err := splitPattern(pat)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, errorf("empty shell pattern")
	}
	if len(words) > maxPatternWords+1 {
		return nil, errorf("shell pattern has more than %d words", maxPatternWords)
	}
	p := &argvPattern{}
	if err := p.setName(words[0]); err != nil {
		return nil, err
	}
	for _, w := range words[1:] {
		t, err := compileTok(w)
		if err != nil {
			return nil, err
		}
		if t.kind == tokRest {
			p.rest |= 1 << len(p.toks)
		}
		p.toks = append(p.toks, t)
	}
	return p, nil
}

func (p *argvPattern) setName(w patWord) error {
	if w.glob == localPrograms {
		// Any program given as a path below the working directory.
		p.local, p.hasSlash, p.nameLit = true, true, localPrograms
		p.name, _ = compileWildcard("*")
		p.nameFold = p.name
		return nil
	}
	if w.glob == "*" || w.glob == "**" {
		return errorf("the command name must be a word, not %q", w.glob)
	}
	var err error
	if p.name, err = compileWildcard(w.glob); err != nil {
		return err
	}
	if folded := foldName(w.glob); folded == w.glob {
		p.nameFold = p.name
	} else if p.nameFold, err = compileWildcard(folded); err != nil {
		return err
	}
	lit, isLit := p.name.isLiteral()
	if isLit && lit == "" {
		return errorf("empty command name")
	}
	p.hasSlash = strings.Contains(w.glob, "/")
	if p.hasSlash {
		if !isLit {
			return errorf("a command path cannot contain wildcards: %q", w.glob)
		}
		lit = path.Clean(lit)
	}
	p.nameLit = lit
	return nil
}

func compileTok(w patWord) (argvTok, error) {
	switch w.glob {
	case "*":
		return argvTok{kind: tokOne}, nil
	case "**":
		return argvTok{kind: tokRest}, nil
	}
	wc, err := compileWildcard(w.glob)
	if err != nil {
		return argvTok{}, err
	}
	return argvTok{kind: tokLit, w: wc}, nil
}

// patWord is one word of a pattern in glob form: quoted characters that
// are special to wildcard ('*', '?', '\') are escaped with a backslash.
type patWord struct {
	glob string
}

// splitPattern splits a shell pattern into words the way the shell would
// split a line of literal words: blanks separate, quotes and backslashes
// quote. Unquoted '*' and '?' stay wildcards; quoted ones are escaped.
func splitPattern(s string) ([]patWord, error) {
	if !strings.ContainsAny(s, "\\'\"") && isPrintableASCII(s) {
		f := strings.Fields(s)
		words := make([]patWord, len(f))
		for i, w := range f {
			words[i] = patWord{glob: w}
		}
		return words, nil
	}
	var words []patWord
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, patWord{glob: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\\':
			if i+1 == len(s) {
				return nil, errorf("trailing backslash in %q", s)
			}
			i++
			writeQuoted(&cur, s[i])
			inWord = true
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, errorf("unterminated quote in %q", s)
			}
			for k := i + 1; k <= i+j; k++ {
				writeQuoted(&cur, s[k])
			}
			i += j + 1
			inWord = true
		case c < 0x20 || c == 0x7f:
			return nil, errorf("control character in %q", s)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

func writeQuoted(b *strings.Builder, c byte) {
	if c == '*' || c == '?' || c == '\\' {
		b.WriteByte('\\')
	}
	b.WriteByte(c)
}

// isPrintableASCII reports text without control or non-ASCII bytes.
func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// matchKind is how a pattern matched an argv.
type matchKind uint8

const (
	noMatch      matchKind = iota
	matchExact             // every word was literal where the pattern looked
	matchDynamic           // only by letting dynamic words fill the gaps
)

// matchAllow matches an argv for an allow rule: the name must be the
// literal word the rule spells, dynamic words can only be absorbed by
// '**' (then the match is matchDynamic), and a command that is open-ended
// (xargs) needs a trailing '**'. afterCD reports that the script changes
// directory, so a relative path such as ./gradlew is not the project's.
func (p *argvPattern) matchAllow(args []shell.Word, openEnded, afterCD bool) matchKind {
	if len(args) == 0 || args[0].Dynamic || !p.allowName(args[0].Text, afterCD) {
		return noMatch
	}
	return p.walk(args[1:], openEnded, false)
}

// matchMay matches an argv for a deny or escalate rule, failing closed:
// the name matches case-insensitively, by base name and without a Windows
// executable suffix; a dynamic word may stand for any number of words, and
// such a possible match is matchDynamic.
func (p *argvPattern) matchMay(args []shell.Word, openEnded bool) matchKind {
	if len(args) == 0 || args[0].Dynamic || !p.mayName(args[0].Text) {
		return noMatch
	}
	return p.walk(args[1:], openEnded, true)
}

func (p *argvPattern) allowName(name string, afterCD bool) bool {
	if p.local {
		return hasSep(name) && !afterCD && isLocalPath(name)
	}
	if hasSep(name) {
		if !p.hasSlash || (afterCD && !path.IsAbs(name)) {
			return false
		}
		return path.Clean(name) == p.nameLit
	}
	return !p.hasSlash && p.name.match(name)
}

func (p *argvPattern) mayName(name string) bool {
	folded := foldCommand(name)
	if p.local {
		return hasSep(folded) && isLocalPath(folded)
	}
	if p.hasSlash {
		rule := foldName(p.nameLit)
		return path.Clean(folded) == rule || baseName(folded) == baseName(rule)
	}
	return p.nameFold.match(folded) || p.nameFold.match(baseName(folded))
}

// walk runs the pattern's word automaton over args. States are pattern
// positions (bit i: "before token i"; bit n: "matched"). clean holds the
// states reached through literal words only, dirty those that needed a
// dynamic word.
func (p *argvPattern) walk(args []shell.Word, openEnded, may bool) matchKind {
	n := len(p.toks)
	accept := uint64(1) << n
	clean, dirty := p.closure(1), uint64(0)
	for _, a := range args {
		if clean|dirty == 0 {
			return noMatch
		}
		if a.Dynamic && a.Glob && may {
			clean, dirty = p.stepGlob(clean, dirty, a.Text)
			continue
		}
		if a.Dynamic {
			clean, dirty = p.stepDynamic(clean, dirty, may)
			continue
		}
		clean, dirty = p.step(clean, a.Text), p.step(dirty, a.Text)
	}
	if openEnded {
		clean, dirty = p.stepDynamic(clean, dirty, may)
	}
	switch {
	case clean&accept != 0:
		return matchExact
	case dirty&accept != 0:
		return matchDynamic
	}
	return noMatch
}

// step consumes one literal word.
func (p *argvPattern) step(set uint64, word string) uint64 {
	var next uint64
	for set != 0 {
		i := bits.TrailingZeros64(set)
		set &^= 1 << i
		if i >= len(p.toks) {
			continue
		}
		switch t := p.toks[i]; t.kind {
		case tokRest:
			next |= 1 << i
		case tokOne:
			next |= 1 << (i + 1)
		case tokLit:
			if t.w.match(word) {
				next |= 1 << (i + 1)
			}
		}
	}
	return p.closure(next)
}

// stepDynamic consumes a word whose value is unknown. '**' absorbs it for
// sure (it stays clean only in may mode, where the rule is a deny or
// escalate and absorbing is certain); for a may-match it may also stand
// for any words at all, reaching every later state.
func (p *argvPattern) stepDynamic(clean, dirty uint64, may bool) (uint64, uint64) {
	rest := p.rest
	if !may {
		return 0, p.closure((clean | dirty) & rest)
	}
	all := clean | dirty
	var up uint64
	if all != 0 {
		low := bits.TrailingZeros64(all)
		up = ^uint64(0) << low & (uint64(1)<<(len(p.toks)+1) - 1)
	}
	return p.closure(clean & rest), up
}

// closure adds the states reachable by letting '**' match nothing.
func (p *argvPattern) closure(set uint64) uint64 {
	for r := p.rest; r != 0; r &= r - 1 {
		if i := bits.TrailingZeros64(r); set&(1<<i) != 0 {
			set |= 1 << (i + 1)
		}
	}
	return set
}

func hasSep(name string) bool { return strings.ContainsAny(name, `/\`) }

func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		return name[i+1:]
	}
	return name
}

// foldCommand lower-cases a command name and drops what Windows ignores
// or adds when it looks a program up: trailing dots and spaces and the
// .exe/.com/.bat/.cmd suffix. Only deny and escalate rules use it.
func foldCommand(name string) string {
	s := strings.TrimRight(foldName(strings.ReplaceAll(name, `\`, "/")), ". ")
	for _, ext := range []string{".exe", ".com", ".bat", ".cmd"} {
		if strings.HasSuffix(s, ext) && len(s) > len(ext) {
			return s[:len(s)-len(ext)]
		}
	}
	return s
}

// localPrograms is the command name of a rule for every program given as
// a relative path that stays below the working directory (./scripts/x,
// bin/app, .venv/bin/python): the project's own programs, when the
// working directory is the project. A path that climbs out (../x) or
// starts at / or ~ is not one; neither is any name after a cd.
const localPrograms = "./**"

func isLocalPath(name string) bool {
	name = strings.ReplaceAll(name, `\`, "/")
	if path.IsAbs(name) || strings.HasPrefix(name, "~") || len(name) > 1 && name[1] == ':' {
		return false
	}
	c := path.Clean(name)
	return c != "." && c != ".." && !strings.HasPrefix(c, "../")
}

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

// lazyArgv compiles a shell rule's pattern the first time a decision
// looks at it. Rules decoded from the signed cache use it: a hook or
// `sandbox check` decides one command, whose name picks a few rules out
// of hundreds, so compiling every rule in every process would be most of
// its work. The index key is read off the pattern's text once, when the
// rule is decoded.
type lazyArgv struct {
	name     string // the literal command name (path-cleaned when it has a slash)
	hasSlash bool
	once     sync.Once
	p        *argvPattern // nil when the pattern does not compile
}

// deferShell sets r up to compile its shell pattern on first use when
// the index key can be read off the pattern's text (its first word is a
// plain literal); it reports false when r must be compiled now.
func (r *Rule) deferShell() bool {
	if r.Trigger != Shell {
		return false
	}
	name, hasSlash, ok := literalName(r.Pattern)
	if !ok {
		return false
	}
	r.lazy = &lazyArgv{name: name, hasSlash: hasSlash}
	return true
}

// shellPattern is r's compiled shell pattern (nil for other triggers, or
// when a deferred pattern fails to compile: see matchShell).
func (r *Rule) shellPattern() *argvPattern {
	if r.lazy == nil {
		return r.argv
	}
	r.lazy.once.Do(func() { r.lazy.p, _ = compileArgv(r.Pattern) })
	return r.lazy.p
}

// compiled reports a rule whose pattern is compiled or deferred to its
// first use (a shell pattern with a literal name).
func (r *Rule) compiled() bool {
	return r.argv != nil || r.lazy != nil || r.path != nil || r.host != nil || r.tool != nil
}

// isShell reports a rule with a shell pattern, compiled or deferred.
func (r *Rule) isShell() bool { return r.argv != nil || r.lazy != nil }

// literalName returns the command name of a shell pattern when the
// pattern needs no quote handling and its first word is a literal (no
// '*' or '?'): exactly what compileArgv would store as nameLit and
// hasSlash. ok is false for every other pattern.
func literalName(pat string) (name string, hasSlash, ok bool) {
	words, inWord := 0, false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c < 0x20 || c >= 0x7f || c == '\\' || c == '\'' || c == '"':
			return "", false, false // quoting, or bytes compileArgv rejects
		case c == ' ':
			inWord = false
		case !inWord:
			inWord = true
			if words++; words == 1 {
				name = pat[i:]
			}
		}
	}
	if words == 0 || words > maxPatternWords+1 {
		return "", false, false
	}
	if sp := strings.IndexByte(name, ' '); sp >= 0 {
		name = name[:sp]
	}
	if strings.ContainsAny(name, "*?") {
		return "", false, false
	}
	if hasSlash = strings.Contains(name, "/"); hasSlash {
		name = path.Clean(name)
	}
	return name, hasSlash, true
}

// shellName is what the index files a shell rule under: its literal
// command name (lit false for a glob name).
func (r *Rule) shellName() (name string, hasSlash, lit bool) {
	if r.lazy != nil {
		return r.lazy.name, r.lazy.hasSlash, true
	}
	_, lit = r.argv.name.isLiteral()
	return r.argv.nameLit, r.argv.hasSlash, lit
}

// matchShell matches argv against r's shell pattern. A deferred pattern
// that does not compile (impossible for a cache written from a parsed
// policy) fails closed: it matches as a deny or escalate rule and never
// as an allow rule.
func (r *boundRule) matchShell(may bool, match func(p *argvPattern) matchKind) matchKind {
	p := r.shellPattern()
	switch {
	case p != nil:
		return match(p)
	case may:
		return matchExact
	}
	return noMatch
}
