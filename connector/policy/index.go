package policy

import (
	"path"
	"sync"
)

// boundRule is a rule ready to match: its path pattern bound to the
// project root and home, and the label a Part shows for it.
type boundRule struct {
	*Rule
	label    string     // Part.Rule: the pattern, builtin:NAME or remembered:PATTERN
	path     *boundPath // write and read rules
	toolFold *wildcard  // mcp rules, folded for deny and escalate
}

// tierRules is the rules of one tier of one trigger. Shell rules are also
// indexed by command name so that a decision looks at few rules. A cached
// policy's shell rules (lazyshell.go) stay in deferred until the first
// lookup of their key files them, after the rules already filed there
// (which came first: the remembered denials). all holds the rules added
// at once only: shell decisions never use it.
type tierRules struct {
	all  []*boundRule
	wild []*boundRule // shell rules whose name is a glob

	tier     Tier        // of the rules here
	deferred []shellLine // a cached policy's shell lines (of every tier); read-only
	jailed   bool        // the engine is jailed: deferred jailed lines count

	mu      sync.Mutex
	byName  map[string][]*boundRule // guarded by mu once decisions start
	drained map[string]bool         // keys whose deferred lines are in byName; guarded by mu
}

// ruleIndex is everything that decides one trigger.
type ruleIndex struct {
	deny, escalate, allow tierRules
	remembered            tierRules // remembered allows: only for soft escalations
}

func (t *tierRules) add(r *boundRule, may bool) {
	t.all = append(t.all, r)
	if !r.isShell() {
		return
	}
	key, hasSlash, lit := r.shellName()
	if !lit {
		t.wild = append(t.wild, r)
		return
	}
	if t.byName == nil {
		t.byName = map[string][]*boundRule{}
	}
	k := indexKey(key, hasSlash, may)
	t.byName[k] = append(t.byName[k], r)
}

// indexKey is the key a shell rule with a literal command name is filed
// under: the name itself for allow rules, its folded base name for deny
// and escalate rules (which must catch every spelling of the command).
func indexKey(name string, hasSlash, may bool) string {
	if !may {
		return name
	}
	if name = foldName(name); hasSlash {
		name = baseName(name)
	}
	return name
}

// lookup returns the rules filed under key, first decoding the deferred
// lines of this tier that file under it (one scan of the lines per new
// key: cheaper than filing hundreds of lines a hook never looks up).
// Called with mu held.
func (t *tierRules) lookup(key string) []*boundRule {
	if len(t.deferred) == 0 || t.drained[key] {
		return t.byName[key]
	}
	if t.byName == nil {
		t.byName = map[string][]*boundRule{}
	}
	if t.drained == nil {
		t.drained = map[string]bool{}
	}
	may := t.tier != Allow
	for i := range t.deferred {
		l := &t.deferred[i]
		if l.deferred() && l.tier == t.tier && (t.jailed || !l.jailed) && indexKey(l.name, l.hasSlash, may) == key {
			r := l.decode()
			t.byName[key] = append(t.byName[key], &boundRule{Rule: r, label: r.Pattern})
		}
	}
	t.drained[key] = true
	return t.byName[key]
}

// forAllow returns the shell rules that can allow the command name.
func (t *tierRules) forAllow(name string) [][]*boundRule {
	key := name
	if hasSep(name) {
		key = path.Clean(name)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return [][]*boundRule{t.lookup(key), t.wild}
}

// forMay returns the shell rules that can deny or escalate the name.
func (t *tierRules) forMay(name string) [][]*boundRule {
	f := foldCommand(name)
	b := baseName(f)
	t.mu.Lock()
	defer t.mu.Unlock()
	if b == f {
		return [][]*boundRule{t.lookup(f), t.wild}
	}
	return [][]*boundRule{t.lookup(f), t.lookup(b), t.wild}
}

// lazyIndex is one trigger's index, built the first time a decision
// needs it: a Bash call never looks at the MCP or network rules.
type lazyIndex struct {
	once sync.Once
	ix   *ruleIndex
}

// index returns the rules that decide trigger t.
func (e *Engine) index(t Trigger) *ruleIndex {
	l := e.sets[t]
	if l == nil {
		return nil // bug: not a trigger; the decision recovers into an internal-error escalation
	}
	l.once.Do(func() { l.ix = e.buildIndex(t) })
	return l.ix // nil when a rule did not compile (buildIndex): the same escalation
}

// buildIndex binds t's built-in rules, the policy's rules and the
// remembered decisions, in precedence order within each tier. A rule from
// the cache whose pattern is not compiled yet is compiled here, into a
// copy (the policy's rules are shared and never change); one that does
// not compile (impossible for a signed cache written from a parsed
// policy) leaves the trigger without an index, and every decision of it
// escalates as an internal error (see index).
func (e *Engine) buildIndex(t Trigger) *ruleIndex {
	ix := &ruleIndex{}
	broken := false
	bind := func(r *Rule, label string) *boundRule {
		if !r.compiled() {
			c := *r
			if err := c.compile(); err != nil {
				e.log.Error("bug: cached rule does not compile", "pattern", r.Pattern, "err", err)
				broken = true
			}
			r = &c
		}
		b := &boundRule{Rule: r, label: label}
		if r.path != nil {
			b.path = r.path.bind(e.rootSegs, e.homeSegs)
		}
		if r.tool != nil {
			b.toolFold, _ = compileWildcard(foldName(r.Pattern))
		}
		return b
	}
	for _, b := range e.builtinRules(t, e.homeSegs) {
		ix.tier(b.Tier).add(b, b.Tier != Allow)
	}
	for _, r := range rememberedRules(e.opts.Remembered, t, Deny) {
		ix.deny.add(bind(r, "remembered:"+r.Pattern), true)
	}
	if t == Shell && e.policy.lazy != nil {
		e.addShellLines(ix, e.policy.lazy.lines)
	} else if rs := e.policy.Rules[t]; rs != nil {
		for _, tr := range []struct {
			to   *tierRules
			list []*Rule
		}{{&ix.deny, rs.Deny}, {&ix.escalate, rs.Escalate}, {&ix.allow, rs.Allow}} {
			for _, r := range tr.list {
				if e.counts(r.Jailed) {
					tr.to.add(bind(r, r.Pattern), tr.to != &ix.allow)
				}
			}
		}
	}
	for _, r := range rememberedRules(e.opts.Remembered, t, Allow) {
		ix.remembered.add(bind(r, "remembered:"+r.Pattern), false)
	}
	if broken {
		return nil
	}
	return ix
}

// addShellLines files a cached policy's shell rules in the policy's
// order: decoded ones at once, deferred ones on the first lookup of
// their key. Within a tier the lists of a parsed policy are in file
// order too, so both paths index the same rules in the same order.
func (e *Engine) addShellLines(ix *ruleIndex, lines []shellLine) {
	for _, t := range []Tier{Deny, Escalate, Allow} {
		ix.tier(t).tier, ix.tier(t).deferred, ix.tier(t).jailed = t, lines, e.jailed
	}
	for i := range lines {
		if l := &lines[i]; !l.deferred() && e.counts(l.jailed) {
			ix.tier(l.tier).add(&boundRule{Rule: l.rule, label: l.rule.Pattern}, l.tier != Allow)
		}
	}
}

func (ix *ruleIndex) tier(t Tier) *tierRules {
	switch t {
	case Deny:
		return &ix.deny
	case Escalate:
		return &ix.escalate
	}
	return &ix.allow
}

func rememberedRules(rem []Remembered, t Trigger, tier Tier) []*Rule {
	var out []*Rule
	for i := range rem {
		if rem[i].Tier != tier {
			continue
		}
		if r, err := rem[i].rule(); err == nil && r.Trigger == t {
			out = append(out, r)
		}
	}
	return out
}
