package policy

import (
	"fmt"
	"unicode/utf8"
)

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
