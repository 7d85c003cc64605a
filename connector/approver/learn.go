package approver

import (
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Bounds of the escalated parts an approval's audit record carries (for
// `sandbox policy suggest`): a record stays far below audit.MaxDetail,
// and a script with more parts than that is not one a rule would learn.
const (
	maxLearnParts   = 16
	maxLearnSubject = 512
)

// escalatedParts is what the approval of req lifted, as the policy in
// force decides it now (never the request's own claims): trigger,
// subject, the rule that escalated it and the narrowest pattern that
// would allow it. `sandbox policy suggest` learns rules from them.
func (a *Approver) escalatedParts(req *queue.Request) []map[string]string {
	var e *policy.Engine
	if a.policy != nil {
		e, _ = a.policy()
	}
	d := Assess(e, a.f, req).Decision
	var out []map[string]string
	for _, p := range d.Parts {
		if p.Decision != policy.Escalate {
			continue
		}
		if len(out) == maxLearnParts || len(p.Subject) > maxLearnSubject {
			return nil
		}
		out = append(out, map[string]string{"trigger": string(p.Trigger), "subject": p.Subject,
			"rule": p.Rule, "propose": p.Propose})
	}
	return out
}

// PartsMemory is a Memory that remembers one rule per escalated part of a
// request ("approve always" of a request with several), PolicyMemory
// among them.
type PartsMemory interface {
	// CheckParts reports whether rules, together, cover req, each lifting
	// at least one of its escalated parts.
	CheckParts(req *queue.Request, rules []policy.Remembered) error
	// RememberParts checks, then stores each rule signed, decided by who.
	RememberParts(req *queue.Request, rules []policy.Remembered, who Identity) error
}

var _ PartsMemory = (*PolicyMemory)(nil)

// CheckParts implements PartsMemory.
func (m *PolicyMemory) CheckParts(req *queue.Request, rules []policy.Remembered) error {
	_, err := m.partCandidates(req, rules, Identity{})
	return err
}

// RememberParts implements PartsMemory.
func (m *PolicyMemory) RememberParts(req *queue.Request, rules []policy.Remembered, who Identity) error {
	rs, err := m.partCandidates(req, rules, who)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := store.Remember(m.f, m.st, r); err != nil {
			return err
		}
	}
	return nil
}

// partCandidates checks rules against req: allows only, at most one per
// escalated part, each needed (it alone lifts one of the escalated
// parts), and together they allow req.
func (m *PolicyMemory) partCandidates(req *queue.Request, rules []policy.Remembered, who Identity) ([]policy.Remembered, error) {
	e, err := m.engine()
	if err != nil {
		return nil, err
	}
	esc := 0
	for _, p := range Classify(e, req).Parts {
		if p.Decision == policy.Escalate {
			esc++
		}
	}
	if len(rules) == 0 || len(rules) > esc {
		return nil, fmt.Errorf("%w: %d rules for %d escalated parts", ErrNoPattern, len(rules), esc)
	}
	out := make([]policy.Remembered, len(rules))
	for i, r := range rules {
		out[i] = policy.Remembered{Trigger: r.Trigger, Tier: policy.Allow, Pattern: r.Pattern}
		if who.User != "" {
			out[i].By, out[i].Reason = who.User, "approved always by "+who.User
		}
		alone, err := m.engine(out[i])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoPattern, err)
		}
		if escalated(Classify(alone, req)) == esc {
			return nil, fmt.Errorf("%w: %s pattern %q lifts no part of this request", ErrNoPattern, r.Trigger, r.Pattern)
		}
	}
	all, err := m.engine(out...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPattern, err)
	}
	if d := Classify(all, req); d.Decision != policy.Allow {
		return nil, fmt.Errorf("%w: the patterns do not cover this request (%s)", ErrNoPattern, strings.Join(d.Reasons, "; "))
	}
	return out, nil
}

func escalated(d policy.Decision) int {
	n := 0
	for _, p := range d.Parts {
		if p.Decision == policy.Escalate {
			n++
		}
	}
	return n
}

// rulesText is how several remembered rules show in a result and the
// audit: "shell `npm install **`; network `registry.npmjs.org`".
func rulesText(rules []policy.Remembered) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = string(r.Trigger) + " `" + r.Pattern + "`"
	}
	return strings.Join(parts, "; ")
}
