package approver

import (
	"github.com/sandbox-dev/sandbox/connector/policy"
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
