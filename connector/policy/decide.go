package policy

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tier is the outcome of a decision. The zero value is not a valid tier;
// ordering is by severity, so the maximum over parts is the whole's tier.
type Tier int

const (
	Allow Tier = iota + 1
	Escalate
	Deny
)

func (t Tier) String() string {
	switch t {
	case Allow:
		return "allow"
	case Escalate:
		return "escalate"
	case Deny:
		return "deny"
	}
	return "invalid"
}

// MarshalText encodes a tier as allow, escalate or deny.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Trigger is what kind of action a rule governs.
type Trigger string

const (
	Shell   Trigger = "shell"
	Write   Trigger = "write"
	Read    Trigger = "read"
	Network Trigger = "network"
	MCP     Trigger = "mcp"
)

// Part is one piece of the input (one simple command, one redirection
// target, one host) with its own tier and the rule or reason that decided.
type Part struct {
	Trigger  Trigger `json:"trigger"`
	Subject  string  `json:"subject"`  // the argv, path or host, as text
	Decision Tier    `json:"decision"` // this part's tier
	Rule     string  `json:"rule"`     // the pattern that matched, or "builtin:NAME", or "default"
	Reason   string  `json:"reason"`   // human-readable why
	// Propose is the narrowest pattern an "approve always" of this part
	// would remember (set on escalated parts; empty when none fits).
	Propose string `json:"propose,omitempty"`
	// Effect is what this part is, as the effect that decided it:
	// "exec node script.js", "write /p/build", "read ~/.ssh/id_rsa",
	// "host registry.npmjs.org:443".
	Effect string `json:"effect"`
	// Jailed says the command runs in the project jail (the decision
	// came from Engine.ForJail), as Decision.Jailed.
	Jailed bool `json:"jailed"`
}

// Decision is the engine's answer: the strictest tier over all parts,
// the human-readable reasons, and every part.
type Decision struct {
	Decision Tier     `json:"decision"`
	Reasons  []string `json:"reasons"`
	Parts    []Part   `json:"parts"`
	// Jailed says the action runs in the project jail: the decision came
	// from an engine made by Engine.ForJail.
	Jailed bool `json:"jailed"`
}

// UnmarshalText decodes allow, escalate or deny.
func (t *Tier) UnmarshalText(b []byte) error {
	for _, v := range []Tier{Allow, Escalate, Deny} {
		if string(b) == v.String() {
			*t = v
			return nil
		}
	}
	return fmt.Errorf("unknown tier %q", b)
}

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

// Bounds on what one decision carries. Approvers list every part (a
// human never approves a hit that was not shown), so the part bound is
// only a memory bound: a request is at most 1 MiB, and 65,536 parts of
// it are a few MiB.
const (
	maxParts   = 1 << 16
	maxReasons = 32
	maxSubject = 160 // characters of a subject quoted in a reason
)

// combine makes the decision over parts: the strictest tier, the reasons
// of the parts at that tier, and the parts (at most maxParts, the
// strictest first when some must be left out).
func combine(parts []Part) Decision {
	d := Decision{Decision: Allow, Reasons: []string{}, Parts: parts}
	if len(parts) == 0 {
		d.Decision = Escalate
		d.Reasons = append(d.Reasons, "nothing to decide on; a human decides")
		d.Parts = []Part{}
		return d
	}
	for i := range parts {
		d.Decision = max(d.Decision, parts[i].Decision)
		if parts[i].Effect == "" {
			parts[i].Effect = effectOf(&parts[i])
		}
	}
	for _, p := range parts {
		if p.Decision != d.Decision || len(d.Reasons) >= maxReasons {
			continue
		}
		r := string(p.Trigger) + " " + clipText(p.Subject, maxSubject) + ": " + p.Reason
		if !contains(d.Reasons, r) {
			d.Reasons = append(d.Reasons, r)
		}
	}
	if len(parts) > maxParts {
		d.Parts = keepStrictest(parts)
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d more parts not listed", len(parts)-len(d.Parts)))
	}
	return d
}

// effectOf names what a part is, as Part.Effect says: the kind of
// effect and its subject.
func effectOf(p *Part) string {
	kind := string(p.Trigger)
	switch p.Trigger {
	case Shell:
		kind = "exec"
	case Network:
		kind = "host"
	}
	return kind + " " + clipText(p.Subject, maxSubject)
}

func keepStrictest(parts []Part) []Part {
	out := make([]Part, 0, maxParts)
	for _, t := range []Tier{Deny, Escalate, Allow} {
		for _, p := range parts {
			if p.Decision == t && len(out) < maxParts {
				out = append(out, p)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// single is a decision made of one part.
func single(t Trigger, subject string, tier Tier, rule, reason string) Decision {
	return combine([]Part{{Trigger: t, Subject: subject, Decision: tier, Rule: rule, Reason: reason}})
}

// clipText bounds s to n characters, marking the cut.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := decodeRune(s[i:])
		i += size
		count++
	}
	return s[:i] + "…"
}

// recoverTo turns a panic in a decision into an escalation (fail closed).
func (e *Engine) recoverTo(d *Decision, t Trigger, subject string) {
	if r := recover(); r != nil {
		e.log.Error("policy engine: internal error", "trigger", t, "panic", r)
		*d = single(t, clipText(subject, maxSubject), Escalate, ruleInternal,
			fmt.Sprintf("internal error in the policy engine (%v); a human decides", r))
	}
}

// stampTo marks a decision, and each of its parts, with whether the
// command runs jailed. Deferred first by every decision method, so that
// it runs last (after recoverTo).
func (e *Engine) stampTo(d *Decision) {
	if !e.jailed {
		return
	}
	d.Jailed = true
	for i := range d.Parts {
		d.Parts[i].Jailed = true
	}
}
