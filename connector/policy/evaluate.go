package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// verdict is the outcome for one part before it becomes a Part.
type verdict struct {
	tier   Tier
	rule   string
	reason string
	soft   bool // an escalation that a remembered allow may lift
	noRule bool // an escalation because no allow rule matches exactly (no escalate or deny rule)
	jailed bool // decided by a `jailed: true` rule
}

func (v verdict) part(t Trigger, subject string) Part {
	return Part{Trigger: t, Subject: subject, Decision: v.tier, Rule: v.rule, Reason: v.reason}
}

// matchFn says how a rule matches the subject; may is set for deny and
// escalate rules, which match whenever the subject could match.
type matchFn func(r *boundRule, may bool) matchKind

// listsFn picks the candidate rules of a tier for the subject.
type listsFn func(t *tierRules, may bool) [][]*boundRule

func allRules(t *tierRules, _ bool) [][]*boundRule { return [][]*boundRule{t.all} }

// evaluate applies the precedence: any deny rule that matches denies (one
// that could match, given words whose value is unknown, escalates); else
// any escalate rule that could match escalates; else
// an allow rule that matches exactly allows; else the default escalates.
// A remembered allow lifts an escalation from a rule or the default, never
// a deny or a built-in escalation.
func evaluate(ix *ruleIndex, lists listsFn, m matchFn) verdict {
	v, found := verdict{}, false
	for _, list := range lists(&ix.deny, true) {
		for _, r := range list {
			switch m(r, true) {
			case matchExact:
				return ruleVerdict(r, matchExact)
			case matchDynamic:
				if !found {
					v, found = ruleVerdict(r, matchDynamic), true
				}
			}
		}
	}
	if found {
		return v
	}
	for _, list := range lists(&ix.escalate, true) {
		for _, r := range list {
			if k := m(r, true); k != noMatch && !found {
				v, found = ruleVerdict(r, k), true
			}
		}
	}
	if !found {
		v = evaluateAllow(ix, lists, m)
	}
	if v.tier == Escalate && v.soft {
		for _, list := range lists(&ix.remembered, false) {
			for _, r := range list {
				if m(r, false) == matchExact {
					return ruleVerdict(r, matchExact)
				}
			}
		}
	}
	return v
}

func evaluateAllow(ix *ruleIndex, lists listsFn, m matchFn) verdict {
	var dyn *boundRule
	for _, list := range lists(&ix.allow, false) {
		for _, r := range list {
			switch m(r, false) {
			case matchExact:
				return ruleVerdict(r, matchExact)
			case matchDynamic:
				if r.Dynamic {
					return ruleVerdict(r, matchExact)
				}
				if dyn == nil {
					dyn = r
				}
			}
		}
	}
	if dyn != nil {
		return verdict{tier: Escalate, rule: dyn.label, soft: true, noRule: true, reason: fmt.Sprintf(
			"allow rule `%s` matches only through words whose value is unknown ($VAR, globs, appended arguments); a human decides", dyn.Pattern)}
	}
	return verdict{tier: Escalate, rule: ruleDefault, soft: true, noRule: true,
		reason: "no rule allows this; anything unknown needs a human"}
}

func ruleVerdict(r *boundRule, k matchKind) verdict {
	reason := r.text()
	if k == matchDynamic && r.Tier == Deny {
		// A deny rule that only may match (its words are not known yet)
		// escalates, and no remembered allow lifts that.
		return verdict{tier: Escalate, rule: r.label,
			reason: "may match a deny rule once its unknown words are expanded: " + reason}
	}
	// A built-in escalation is never soft: no remembered allow lifts it.
	return verdict{tier: r.Tier, rule: r.label, reason: reason, soft: r.Tier == Escalate && !strings.HasPrefix(r.label, "builtin:"),
		jailed: r.Jailed}
}

// text is the reason a part decided by r shows: the rule's reason or its
// pattern, with the line of policy.yaml it comes from.
func (r *boundRule) text() string {
	reason := r.Reason
	if reason == "" {
		reason = r.Tier.String() + " rule `" + r.Pattern + "`"
	}
	if r.Line > 0 {
		reason += " (policy.yaml:" + strconv.Itoa(r.Line) + ")"
	}
	return reason
}
