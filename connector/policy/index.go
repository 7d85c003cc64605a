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
// indexed by command name so that a decision looks at few rules.
type tierRules struct {
	all    []*boundRule
	byName map[string][]*boundRule
	wild   []*boundRule // shell rules whose name is a glob
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
	if may {
		key = foldName(key)
		if hasSlash {
			key = baseName(key)
		}
	}
	if t.byName == nil {
		t.byName = map[string][]*boundRule{}
	}
	t.byName[key] = append(t.byName[key], r)
}

// forAllow returns the shell rules that can allow the command name.
func (t *tierRules) forAllow(name string) [][]*boundRule {
	key := name
	if hasSep(name) {
		key = path.Clean(name)
	}
	return [][]*boundRule{t.byName[key], t.wild}
}

// forMay returns the shell rules that can deny or escalate the name.
func (t *tierRules) forMay(name string) [][]*boundRule {
	f := foldCommand(name)
	b := baseName(f)
	if b == f {
		return [][]*boundRule{t.byName[f], t.wild}
	}
	return [][]*boundRule{t.byName[f], t.byName[b], t.wild}
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
	return l.ix
}

// buildIndex binds t's built-in rules, the policy's rules and the
// remembered decisions, in precedence order within each tier.
func (e *Engine) buildIndex(t Trigger) *ruleIndex {
	ix := &ruleIndex{}
	bind := func(r *Rule, label string) *boundRule {
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
	if rs := e.policy.Rules[t]; rs != nil {
		for _, r := range rs.Deny {
			ix.deny.add(bind(r, r.Pattern), true)
		}
		for _, r := range rs.Escalate {
			ix.escalate.add(bind(r, r.Pattern), true)
		}
		for _, r := range rs.Allow {
			ix.allow.add(bind(r, r.Pattern), false)
		}
	}
	for _, r := range rememberedRules(e.opts.Remembered, t, Allow) {
		ix.remembered.add(bind(r, "remembered:"+r.Pattern), false)
	}
	return ix
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
