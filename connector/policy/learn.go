package policy

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Approval is one escalated part that a human approved, as the approver
// recorded it in the audit log: its trigger, subject and the narrowest
// pattern that would have allowed it.
type Approval struct {
	Trigger Trigger
	Subject string
	Propose string
	Time    time.Time
}

// Suggestion is a rule learned from repeated approvals of one shape.
type Suggestion struct {
	Trigger Trigger `json:"trigger"`
	// Pattern is the narrowest allow pattern covering every approval of
	// the group; "" when none may be proposed (Note says why).
	Pattern  string    `json:"pattern,omitempty"`
	Count    int       `json:"count"`
	Days     int       `json:"days"` // from the first approval to the last, at least 1
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	Examples []string  `json:"examples"` // distinct exact patterns, at most 3
	// Replaces is the policy's escalate rule that the suggestion moves to
	// the allow list (it is exactly that rule's pattern); Line is its line.
	Replaces string `json:"replaces,omitempty"`
	Line     int    `json:"line,omitempty"`
	// Note says why the suggestion cannot go into policy.yaml, or why
	// nothing is proposed for these approvals.
	Note string `json:"note,omitempty"`
}

// Writable reports whether the suggestion is a rule for policy.yaml.
func (s Suggestion) Writable() bool { return s.Pattern != "" && s.Note == "" }

// Summary is the one line a human reads: "`npm install **` approved 14
// times in 7 days".
func (s Suggestion) Summary() string {
	what := s.Pattern
	if what == "" && len(s.Examples) > 0 {
		what = s.Examples[0]
	}
	return fmt.Sprintf("%s `%s` approved %d time%s in %d day%s", s.Trigger, what, s.Count, plural(s.Count), s.Days, plural(s.Days))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// learnGroup is the approvals of one shape.
type learnGroup struct {
	Suggestion
	part   Part
	exacts []string
}

// Learn groups approvals by shape (the general pattern Generalize offers,
// else the exact one) as the policy e decides them now, and proposes for
// each group of at least min approvals the narrowest rule covering them
// all. Approvals the policy now allows are left out; those it denies, or
// that an escalate rule would still override, are returned with a Note
// and no pattern.
func (e *Engine) Learn(approvals []Approval, min int) []Suggestion {
	groups, order := e.group(approvals)
	var out []Suggestion
	for _, k := range order {
		if g := groups[k]; g.Count >= min {
			out = append(out, e.finish(g))
		}
	}
	return out
}

// LearnFor is Learn for the one shape of part p (an escalated part of a
// request just approved): its suggestion, when at least min approvals
// have that shape and a pattern can be proposed.
func (e *Engine) LearnFor(approvals []Approval, p Part, min int) (Suggestion, bool) {
	pr := e.Generalize(p)
	if pr.Exact == "" {
		return Suggestion{}, false
	}
	groups, _ := e.group(approvals)
	g := groups[shapeKey(p, pr)]
	if g == nil || g.Count < min {
		return Suggestion{}, false
	}
	s := e.finish(g)
	return s, s.Pattern != ""
}

// shapeKey groups approvals: the trigger, the rule that escalated them
// and the general pattern (else the exact one).
func shapeKey(p Part, pr Proposal) string {
	shape := pr.General
	if shape == "" {
		shape = pr.Exact
	}
	if shape == "" {
		shape = "\x00" + p.Propose // not proposable: grouped to say why once
	}
	return string(p.Trigger) + "\x00" + p.Rule + "\x00" + shape
}

// group sorts approvals into groups of one shape, as the policy e
// decides them now; approvals it allows now are left out.
func (e *Engine) group(approvals []Approval) (map[string]*learnGroup, []string) {
	groups := map[string]*learnGroup{}
	var order []string
	for _, a := range approvals {
		part, ok := e.redecide(a)
		if !ok {
			continue
		}
		pr := e.Generalize(part)
		key := shapeKey(part, pr)
		g := groups[key]
		if g == nil {
			g = &learnGroup{part: part, Suggestion: Suggestion{Trigger: a.Trigger, First: a.Time, Note: noteFor(pr)}}
			groups[key] = g
			order = append(order, key)
		}
		g.Count++
		g.First, g.Last = minTime(g.First, a.Time), maxTime(g.Last, a.Time)
		if !slices.Contains(g.exacts, a.Propose) {
			g.exacts = append(g.exacts, a.Propose)
		}
		if pr.General == "" && len(g.exacts) > 1 {
			g.Note = "approved in several forms with no general pattern: " + pr.Why
		}
	}
	return groups, order
}

// noteFor is why a proposal gives nothing to learn, or "".
func noteFor(pr Proposal) string {
	if pr.Exact == "" {
		return "not proposed: " + pr.Why
	}
	return ""
}

// finish sets the group's pattern, examples, span and where it goes.
func (e *Engine) finish(g *learnGroup) Suggestion {
	s := g.Suggestion
	s.Days = max(1, int(math.Ceil(s.Last.Sub(s.First).Hours()/24)))
	s.Examples = g.exacts[:min(3, len(g.exacts))]
	if s.Note != "" {
		return s
	}
	s.Pattern = e.narrowest(g)
	switch rule := g.part.Rule; {
	case rule == ruleDefault:
	case rule == s.Pattern:
		s.Replaces, s.Line = rule, e.ruleLine(g.part.Trigger, rule)
	default:
		s.Note = fmt.Sprintf("policy.yaml cannot say this: the escalate rule `%s` wins over any allow rule; "+
			"approve always (watch, the dashboard) remembers `%s` for this folder", rule, s.Pattern)
	}
	return s
}

// narrowest is the narrowest pattern covering the group: the one exact
// pattern, or (shell) the words every approval shares followed by '**',
// else the general pattern (a directory, a host on any port).
func (e *Engine) narrowest(g *learnGroup) string {
	if len(g.exacts) == 1 {
		return g.exacts[0]
	}
	pr := e.Generalize(g.part)
	if g.Trigger != Shell {
		return pr.General
	}
	var common []string
	for i, ex := range g.exacts {
		words, ok := patternWords(ex)
		if !ok {
			return pr.General
		}
		if i == 0 {
			common = words
			continue
		}
		n := 0
		for n < len(common) && n < len(words) && common[n] == words[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) == 0 {
		return pr.General
	}
	return argvCandidate(common).pattern
}

// patternWords splits an exact shell pattern into its literal words.
func patternWords(pattern string) ([]string, bool) {
	words, err := splitPattern(pattern)
	if err != nil {
		return nil, false
	}
	out := make([]string, len(words))
	for i, w := range words {
		lit, ok := unglob(w.glob)
		if !ok {
			return nil, false
		}
		out[i] = lit
	}
	return out, true
}

// redecide decides an approval's exact pattern with the policy in force
// now, returning its part when it still escalates or is denied.
func (e *Engine) redecide(a Approval) (Part, bool) {
	if a.Propose == "" {
		return Part{}, false
	}
	var d Decision
	switch a.Trigger {
	case Shell:
		words, ok := patternWords(a.Propose)
		if !ok {
			return Part{}, false
		}
		d = e.Argv(words, "")
	case Write:
		p, _ := unglob(a.Propose)
		d = e.Write(p, "")
	case Read:
		p, _ := unglob(a.Propose)
		d = e.Read(p, "")
	case Network:
		d = e.Network(a.Propose)
	case MCP:
		d = e.MCP(a.Propose)
	default:
		return Part{}, false
	}
	for _, p := range d.Parts {
		if p.Trigger == a.Trigger && p.Decision != Allow && p.Propose == a.Propose {
			return p, true
		}
	}
	for _, p := range d.Parts { // denied now, or escalated with no pattern: say why
		if p.Trigger == a.Trigger && p.Decision != Allow {
			return p, true
		}
	}
	return Part{}, false
}

// ruleLine is the policy.yaml line of trigger t's escalate rule pattern.
func (e *Engine) ruleLine(t Trigger, pattern string) int {
	rs := e.Policy().Rules[t]
	if rs == nil {
		return 0
	}
	for _, r := range rs.Escalate {
		if r.Pattern == pattern {
			return r.Line
		}
	}
	return 0
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// learnedReason is the reason a learned rule carries in policy.yaml.
func learnedReason(s Suggestion) string {
	return strings.TrimSpace(fmt.Sprintf("learned: approved %d time%s in %d day%s", s.Count, plural(s.Count), s.Days, plural(s.Days)))
}
