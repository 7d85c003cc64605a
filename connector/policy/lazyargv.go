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
// its work.
type lazyArgv struct {
	once sync.Once
	p    *argvPattern // nil when the pattern does not compile
}

// deferShell sets r up to compile its shell pattern on first use when
// the index key can be read off the pattern's text (its first word is a
// plain literal); it reports false when r must be compiled now.
func (r *Rule) deferShell() bool {
	if r.Trigger != Shell {
		return false
	}
	if _, _, ok := literalName(r.Pattern); !ok {
		return false
	}
	r.lazy = &lazyArgv{}
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

// isShell reports a rule with a shell pattern, compiled or deferred.
func (r *Rule) isShell() bool { return r.argv != nil || r.lazy != nil }

// literalName returns the command name of a shell pattern when the
// pattern needs no quote handling and its first word is a literal (no
// '*' or '?'): exactly what compileArgv would store as nameLit and
// hasSlash. ok is false for every other pattern.
func literalName(pat string) (name string, hasSlash, ok bool) {
	if strings.ContainsAny(pat, "\\'\"") || !isPrintableASCII(pat) {
		return "", false, false
	}
	words := 0
	for i := 0; i < len(pat); {
		for i < len(pat) && pat[i] == ' ' {
			i++
		}
		start := i
		for i < len(pat) && pat[i] != ' ' {
			i++
		}
		if i > start {
			if words == 0 {
				name = pat[start:i]
			}
			words++
		}
	}
	if words == 0 || words > maxPatternWords+1 || strings.ContainsAny(name, "*?") {
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
		return literalName(r.Pattern)
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
