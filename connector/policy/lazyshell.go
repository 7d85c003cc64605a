package policy

import (
	"errors"
	"strings"
	"sync"
)

var errBadLine = errors.New("bad cache rule")

// lazyShell holds the shell rules of a policy decoded from the signed
// cache, in the cache's order. A rule whose command name can be read off
// its text stays an undecoded line until a decision looks up that name
// (see tierRules.forAllow and forMay): a hook decides one command, whose
// name picks a few of the policy's hundreds of shell rules. Every other
// reader of the rules gets them all through Engine.Policy, which
// materializes them first.
type lazyShell struct {
	lines []shellLine
	once  sync.Once // materialize
}

// shellLine is one shell rule of a cache. With a name, it is filed under
// that command name on the first lookup of the name; without one, it is
// indexed at once. Its rule is decoded already (the compiled cache, or a
// rule indexed at once) or decoded from rest (the text cache's R line
// after "R\t").
type shellLine struct {
	rule     *Rule
	rest     string
	tier     Tier
	name     string // the literal command name; "" for a rule indexed at once
	hasSlash bool
	jailed   bool // the rule counts only on a jailed engine
}

// deferred reports a line filed on the first lookup of its name.
func (l *shellLine) deferred() bool { return l.name != "" }

// deferLine keeps an R line of the policy's shell rules undecoded when
// its pattern is a plain quoted string with a literal command name; it
// reports false when the line must be decoded now.
func (l *lazyShell) deferLine(rest string, f []string) bool {
	q := f[6]
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' || strings.IndexByte(q, '\\') >= 0 {
		return false
	}
	name, hasSlash, ok := literalName(q[1 : len(q)-1])
	tier, ok2 := tierField(f[2])
	if !ok || !ok2 {
		return false
	}
	l.lines = append(l.lines, shellLine{rest: rest, tier: tier, name: name, hasSlash: hasSlash, jailed: f[8] == "true"})
	return true
}

func tierField(s string) (Tier, bool) {
	if len(s) != 1 || Tier(s[0]-'0') < Allow || Tier(s[0]-'0') > Deny {
		return 0, false
	}
	return Tier(s[0] - '0'), true
}

// decode returns line l's rule (a new one each time for a deferred
// line: lines are shared, read-only, by the index and materialize). A
// line that does not decode (impossible for a signed cache written from
// a parsed policy) becomes a rule whose pattern never compiles, which
// matches as a deny or escalate rule and never as an allow rule (see
// matchShell).
func (l *shellLine) decode() *Rule {
	if l.rule != nil {
		return l.rule
	}
	var f [cacheRuleFields]string
	r, err := (*Rule)(nil), errBadLine
	if splitFields(l.rest, f[:]) {
		r, err = parseCacheRule(f[:], true)
	}
	if err != nil || r.Trigger != Shell || r.Tier != l.tier || r.Jailed != l.jailed || r.lazy == nil || r.lazy.name != l.name {
		r = &Rule{Trigger: Shell, Tier: l.tier, Pattern: l.rest, Reason: "undecodable cached rule",
			lazy: &lazyArgv{name: l.name, hasSlash: l.hasSlash}}
		r.lazy.once.Do(func() {}) // p stays nil: the pattern never compiles
	}
	return r
}

// materialize decodes every deferred shell rule into p.Rules[Shell], in
// the policy's order. It runs once per policy.
func (p *Policy) materialize() {
	if p.lazy == nil {
		return
	}
	p.lazy.once.Do(func() {
		rs := p.Rules[Shell]
		for i := range p.lazy.lines {
			rs.add(p.lazy.lines[i].decode())
		}
	})
}

// add appends r to its tier's list.
func (rs *RuleSet) add(r *Rule) {
	switch r.Tier {
	case Deny:
		rs.Deny = append(rs.Deny, r)
	case Escalate:
		rs.Escalate = append(rs.Escalate, r)
	default:
		rs.Allow = append(rs.Allow, r)
	}
}
