package policy

import (
	"path"
	"strings"
	"sync"
)

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
