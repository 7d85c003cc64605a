package policy

import (
	"fmt"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// CIReasonPrefix starts the reason of every part that the ci: section
// decided, so that CI mode can say which of its rules approved or denied.
const CIReasonPrefix = "ci: "

// LoadCI builds the engine of an unattended CI run (`sandbox run --ci`)
// for folder f: the accepted policy and remembered decisions, as Load
// gives them, plus the policy's ci: section. A ci: deny rule is one more
// deny rule. A ci: approve rule lifts an escalation the way a remembered
// allow does: only an escalation by an escalate rule or by the default,
// never a deny, a built-in escalation or a match through words whose
// value is unknown. So an escalated request is approved in CI exactly
// when this engine allows it; everything else is refused.
func LoadCI(f folder.Folder, st *userstate.State, o Options) (*Engine, []Warning, error) {
	if st == nil {
		return nil, nil, fmt.Errorf("policy: %w: no per-user state", ErrNotAccepted)
	}
	pol, status, warns, err := loadPolicy(f, st)
	if err != nil {
		return nil, warns, err
	}
	rem, rw := LoadRemembered(f, st)
	warns = append(warns, rw...)
	ciPol, approve := forCI(pol)
	o.Remembered = append(append(o.Remembered, rem...), approve...)
	if o.StateDir == "" {
		o.StateDir = st.Dir
	}
	e, err := New(f.Root, ciPol, o)
	if err != nil {
		return nil, warns, err
	}
	e.status = status
	return e, warns, nil
}

// forCI returns p with the ci: deny rules added to its deny rules, and
// the ci: approve rules as remembered allows. A nil p (nothing accepted)
// stays nil: there is no ci: section to apply.
func forCI(p *Policy) (*Policy, []Remembered) {
	if p == nil {
		return nil, nil
	}
	out := *p
	out.Rules = map[Trigger]*RuleSet{}
	for t, rs := range p.Rules {
		out.Rules[t] = &RuleSet{Allow: rs.Allow, Escalate: rs.Escalate, Deny: rs.Deny}
	}
	var approve []Remembered
	for t, ci := range p.CI {
		if ci == nil {
			continue
		}
		rs := out.Rules[t]
		if rs == nil {
			rs = &RuleSet{}
			out.Rules[t] = rs
		}
		rs.Deny = append(append([]*Rule{}, rs.Deny...), ciDenies(ci.Deny)...)
		for _, r := range ci.Allow {
			approve = append(approve, Remembered{Trigger: t, Tier: Allow, Pattern: r.Pattern, Reason: ciReason("approve", r)})
		}
	}
	return &out, approve
}

func ciDenies(rules []*Rule) []*Rule {
	out := make([]*Rule, 0, len(rules))
	for _, r := range rules {
		c := *r // keeps the compiled pattern
		c.Reason, c.Line = ciReason("deny", r), 0
		out = append(out, &c)
	}
	return out
}

// ciReason is "ci: approve `PATTERN` (policy.yaml:LINE): REASON".
func ciReason(verb string, r *Rule) string {
	s := fmt.Sprintf("%s%s `%s`", CIReasonPrefix, verb, r.Pattern)
	if r.Line > 0 {
		s += fmt.Sprintf(" (policy.yaml:%d)", r.Line)
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}
