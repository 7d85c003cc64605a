package policy

import (
	"strconv"
	"strings"
)

// Why answers "why did it ask?" for a decision that escalates or denies:
// the one part responsible, what decided it, and either the narrowest
// rule that would allow it or why no rule can.
type Why struct {
	Part Part `json:"part"`
	// Allow is the narrowest rule that would allow the part, as a line of
	// policy.yaml under Part.Trigger's allow list ("mkdir -p build",
	// `{pattern: "node x.js", jailed: true}`); "" when no rule can.
	Allow string `json:"allow,omitempty"`
	// NoRule says why no policy rule can allow the part, when Allow is
	// "" (a deny, a built-in rule, an escalate rule that wins over any
	// allow rule, a word whose value is unknown).
	NoRule string `json:"no_rule,omitempty"`
}

// Why returns the part responsible for d with its narrowest allowing
// rule: the first denied part of a denial; for an escalation the first
// part that weighs most (a deny rule that may match, a built-in rule, an
// escalate rule, a subject no pattern can name, then one a rule could
// allow), since allowing any other part would not allow the whole. ok is
// false when d allows.
func (d Decision) Why() (w Why, ok bool) {
	if d.Decision == Allow || d.Decision == 0 {
		return Why{}, false
	}
	best := -1
	for i := range d.Parts {
		p := d.Parts[i]
		if p.Decision != d.Decision {
			continue
		}
		c := whyOf(p)
		if best < 0 || c.weight() > w.weight() {
			w, best = c, i
		}
		if d.Decision == Deny {
			break
		}
	}
	if best < 0 {
		return Why{Part: Part{Decision: d.Decision, Reason: strings.Join(d.Reasons, "; ")},
			NoRule: "the decision names no part"}, true
	}
	return w, true
}

// weight orders the reasons a part escalates: the one that weighs most
// is the one to tell the human.
func (w Why) weight() int {
	p := w.Part
	switch {
	case w.Allow != "":
		return 0
	case strings.HasPrefix(p.Reason, "may match a deny rule"):
		return 4
	case strings.HasPrefix(p.Rule, "builtin:"):
		return 3
	case p.Rule != ruleDefault:
		return 2
	}
	return 1
}

// whyOf says how part p could be allowed.
func whyOf(p Part) Why {
	w := Why{Part: p}
	switch {
	case p.Decision == Deny:
		w.NoRule = "it is denied by " + p.Rule + ", and deny rules win over every allow rule"
	case strings.HasPrefix(p.Reason, "may match a deny rule"):
		w.NoRule = "a deny rule (" + p.Rule + ") may match it once its unknown words are expanded; approve it once"
	case strings.HasPrefix(p.Rule, "builtin:"):
		w.NoRule = builtinNoRule(p)
	case strings.HasPrefix(p.Rule, "remembered:"):
		w.NoRule = "a remembered decision decided it"
	case p.Rule != ruleDefault && strings.HasPrefix(p.Reason, "allow rule `"):
		// an allow rule that matched only through dynamic words
		w.Allow = ruleLine(p.Rule, true, p.Jailed)
	case p.Rule != ruleDefault:
		w.NoRule = "the escalate rule `" + p.Rule + "` wins over any allow rule"
		if p.Propose != "" {
			w.NoRule += "; approve always remembers `" + p.Propose + "` for this folder"
		}
	case p.Propose == "":
		w.NoRule = "no pattern can name it exactly (a word whose value is unknown, or arguments appended at run time)"
	default:
		w.Allow = ruleLine(p.Propose, false, p.Jailed && p.Trigger == Shell)
	}
	return w
}

// builtinNoRule explains a built-in escalation, which no rule lifts.
func builtinNoRule(p Part) string {
	switch p.Rule {
	case ruleOpaque:
		return "the analyzer cannot see what it would do, and no rule can allow what it cannot see; approve it once, or write it so that it can (no eval, no program text in a string)"
	case ruleDynamic:
		return "a command name, path or destination is not known until it runs; no rule can name it"
	case ruleCD:
		return "it changes to a directory not known statically; no rule can follow it"
	case ruleGit:
		return "writes to .git and commands in other repositories always ask a human (" + reasonGit + ")"
	}
	return "the built-in rule " + p.Rule + " decided it, which no rule lifts"
}

// ruleLine writes a pattern as a rule line of policy.yaml: plain when it
// needs no flag, else a mapping with dynamic or jailed.
func ruleLine(pattern string, dynamic, jailed bool) string {
	if !dynamic && !jailed {
		return strconv.Quote(pattern)
	}
	s := "{pattern: " + strconv.Quote(pattern)
	if dynamic {
		s += ", dynamic: true"
	}
	if jailed {
		s += ", jailed: true"
	}
	return s + "}"
}

// String is the answer on one line, for check, the hook's message and
// the approvers: "asked because of shell mkdir x: no rule allows this
// (default); a rule that would allow it: shell allow "mkdir x"".
func (w Why) String() string {
	p := w.Part
	verb := "asked because of "
	if p.Decision == Deny {
		verb = "denied because of "
	}
	s := verb + string(p.Trigger) + " " + clipText(p.Subject, maxSubject) + ": " + p.Reason
	if p.Rule != "" {
		s += " (" + p.Rule + ")"
	}
	if w.Allow != "" {
		return s + "; the narrowest rule that would allow it: " + string(p.Trigger) + " allow " + w.Allow
	}
	return s + "; no rule can allow it: " + w.NoRule
}
