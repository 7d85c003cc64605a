// Package review is what a human must see before deciding an escalated
// request, the same on every approver (sandbox watch, show, approve, the
// dashboard): the policy's rule hits recomputed by the trusted side and
// ranked by what they can do (never capped: identical hits are grouped
// with a count), where an approval would run, and whether anybody still
// waits for the answer. It never trusts what the request file says about
// itself: the reasons a file carries are shown only as the requester's
// claim when the policy cannot be consulted.
package review

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Hit is one distinct rule hit: a part of the request with the tier the
// policy gave it, its risks and how many identical parts it stands for.
// Subject and Reason are escaped (display.EscapeLine).
type Hit struct {
	Tier    policy.Tier    `json:"tier"`
	Risks   []Risk         `json:"risks"`
	Trigger policy.Trigger `json:"trigger"`
	Subject string         `json:"subject"`
	Reason  string         `json:"reason"`
	Rule    string         `json:"rule,omitempty"`
	// Destroys: it deletes or overwrites data (rm -rf, git reset --hard).
	Destroys bool `json:"destroys,omitempty"`
	Count    int  `json:"count"`
}

// Risk is the hit's most dangerous risk.
func (h Hit) Risk() Risk { return h.Risks[0] }

// Review is everything about a request an approver shows besides its
// payload.
type Review struct {
	// Tier is the policy's decision for the request as recomputed now.
	Tier policy.Tier `json:"tier"`
	// Hits are the distinct rule hits: deny and escalate first, ranked by
	// risk (then deny before escalate, then script order), the allowed
	// parts last. Never capped.
	Hits []Hit `json:"hits"`
	// Recomputed is false when the policy could not be consulted: Hits
	// then come from the reasons the request file carries (the
	// requester's claim, not the trusted side's).
	Recomputed bool `json:"recomputed"`
	// Where is one line saying where an approval runs and with what.
	Where []string `json:"where"`
	// Stale, when set, says why nobody waits for the answer any more: an
	// approval then needs a second, deliberate step.
	Stale string `json:"stale,omitempty"`
	// Origin is where the request really comes from; Claims what its file
	// says about itself (source, agent, session), labelled as claims.
	Origin string `json:"origin,omitempty"`
	Claims string `json:"claims,omitempty"`
	// Refused, when set, says why running the request will be refused
	// whatever is decided (it targets the sandbox's own protection):
	// approvers offer only "deny".
	Refused string `json:"refused,omitempty"`
	// Why names the one part responsible for an escalation, the rule or
	// effect that decided it, and the narrowest rule that would allow it.
	Why string `json:"why,omitempty"`
	// Always is what "approve always" can remember, one proposal per
	// escalated part (exact and general patterns, or why none), escaped.
	Always []policy.Proposal `json:"always,omitempty"`
}

// Facts are what the trusted side found out about a request.
type Facts struct {
	Decision   policy.Decision
	Recomputed bool
	Root       string
	Where      []string
	Stale      string
	Origin     string
	Claims     string
	Refused    string
	Always     []policy.Proposal
}

// New ranks the hits of f.Decision (or, when it was not recomputed, of the
// reasons req carries).
func New(req *queue.Request, f Facts) *Review {
	r := &Review{Tier: f.Decision.Decision, Recomputed: f.Recomputed, Stale: display.EscapeLine(f.Stale),
		Origin: display.EscapeLine(f.Origin), Claims: display.EscapeLine(f.Claims), Refused: display.EscapeLine(f.Refused)}
	for _, w := range f.Where {
		r.Where = append(r.Where, display.EscapeLine(w))
	}
	parts := f.Decision.Parts
	if !f.Recomputed {
		parts = claimed(req)
		r.Tier = policy.Escalate
	}
	r.Hits = rank(parts, f.Root)
	if f.Recomputed {
		r.Why = display.EscapeLine(Why(f.Decision))
	}
	for _, pr := range f.Always {
		r.Always = append(r.Always, policy.Proposal{Trigger: pr.Trigger, Subject: display.EscapeLine(pr.Subject),
			Exact: display.EscapeLine(pr.Exact), General: display.EscapeLine(pr.General), Why: display.EscapeLine(pr.Why)})
	}
	return r
}

// Why is one line naming the part responsible for d's escalation or
// denial, the rule or effect that decided it, and the narrowest rule that
// would allow it or why none can (policy.Decision.Why, the line check and
// the hook's message show too); "" when d allows.
func Why(d policy.Decision) string {
	if w, ok := d.Why(); ok {
		return w.String()
	}
	return ""
}

// claimed turns the reasons a request file carries into escalated parts.
func claimed(req *queue.Request) []policy.Part {
	var out []policy.Part
	for _, s := range req.PolicyReasons {
		out = append(out, policy.Part{Trigger: "claimed", Subject: s, Decision: policy.Escalate,
			Reason: "the requester's own words: the policy could not be consulted"})
	}
	return out
}

// rank groups identical parts and orders them: the hits that need a
// human by risk, deny before escalate, what deletes data first, more
// risks before fewer, then in script order; the allowed
// parts last, in script order.
func rank(parts []policy.Part, root string) []Hit {
	var hits []Hit
	index := map[string]int{}
	for _, p := range parts {
		key := p.Decision.String() + "\x00" + string(p.Trigger) + "\x00" + p.Subject + "\x00" + p.Reason
		if i, ok := index[key]; ok {
			hits[i].Count++
			continue
		}
		index[key] = len(hits)
		hits = append(hits, Hit{Tier: p.Decision, Risks: Classify(p, root), Trigger: p.Trigger, Destroys: Destroys(p),
			Subject: display.EscapeLine(p.Subject), Reason: display.EscapeLine(p.Reason), Rule: display.EscapeLine(p.Rule), Count: 1})
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.Risk() != b.Risk() {
			return int(a.Risk()) - int(b.Risk())
		}
		if a.Tier != b.Tier {
			return int(b.Tier) - int(a.Tier)
		}
		if a.Destroys != b.Destroys && a.Tier != policy.Allow {
			if a.Destroys {
				return -1
			}
			return 1
		}
		return len(b.Risks) - len(a.Risks) // sudo bash before bash
	})
	return hits
}

// Needs are the hits a human decides (deny and escalate), riskiest first.
func (r *Review) Needs() []Hit {
	i := slices.IndexFunc(r.Hits, func(h Hit) bool { return h.Tier == policy.Allow })
	if i < 0 {
		return r.Hits
	}
	return r.Hits[:i]
}

// Allowed are the hits the policy allows.
func (r *Review) Allowed() []Hit { return r.Hits[len(r.Needs()):] }

// Line is one hit on one line: "risk · trigger subject: reason (×N)".
func (h Hit) Line() string {
	var b strings.Builder
	b.WriteString(string(h.Trigger))
	b.WriteString(" ")
	b.WriteString(h.Subject)
	if h.Reason != "" {
		b.WriteString(": ")
		b.WriteString(h.Reason)
	}
	if h.Count > 1 {
		b.WriteString(" (×")
		b.WriteString(strconv.Itoa(h.Count))
		b.WriteString(")")
	}
	return b.String()
}

// RiskNames names a hit's risks: "runs a program, privilege".
func (h Hit) RiskNames() string {
	names := make([]string, len(h.Risks))
	for i, r := range h.Risks {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}

// Headline is the request's riskiest hits in a few words, for lists: the
// subjects of the hits that need a human, most dangerous first, and how
// many more there are (never a prefix of the command).
func (r *Review) Headline(max int) string {
	var parts []string
	seen := map[string]bool{}
	for _, h := range r.Needs() {
		if seen[h.Subject] {
			continue
		}
		seen[h.Subject] = true
		if len(parts) < max {
			parts = append(parts, h.Tier.String()+" "+h.Risk().String()+": "+display.Truncate(h.Subject, 80))
		}
	}
	if more := len(seen) - len(parts); more > 0 {
		parts = append(parts, "+"+strconv.Itoa(more)+" more")
	}
	return strings.Join(parts, " · ")
}
