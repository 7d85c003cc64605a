package approver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// ErrAuditUntrusted: the audit log fails verification, so nothing is
// learned from it (a forged record must not become a rule).
var ErrAuditUntrusted = errors.New("the audit log fails verification")

// humanActors are the approvers whose approvals teach rules: a human at
// watch, the dashboard or the CLI; never CI's automatic decisions or a
// remembered decision.
var humanActors = map[string]bool{
	"approver:" + SurfaceWatch: true,
	"approver:" + SurfaceServe: true,
	"approver:" + SurfaceCLI:   true,
}

// LearnedApprovals verifies f's audit log, then returns the escalated
// parts that humans approved since since: from request.approved records
// (which name the parts the approval lifted, as the approver's policy
// decided them), leaving out requests also denied (a deny that won the
// race) and every record that is not authentic.
func LearnedApprovals(ctx context.Context, f folder.Folder, st *userstate.State, since time.Time) ([]policy.Approval, error) {
	rep, err := audit.Verify(f, st)
	if err != nil {
		return nil, err
	}
	if !rep.OK {
		return nil, fmt.Errorf("%w: %s", ErrAuditUntrusted, rep.FirstBad)
	}
	denied := map[string]bool{}
	type approved struct {
		id    string
		parts []policy.Approval
	}
	var all []approved
	err = audit.Read(ctx, f, st, 0, func(r audit.Record) error {
		switch {
		case !r.Authentic:
			return nil
		case r.Event == "request.denied":
			denied[r.RequestID] = true
		case r.Event == "request.approved" && humanActors[r.Actor] && !r.Time.Before(since):
			if parts := approvalParts(r); len(parts) > 0 {
				all = append(all, approved{r.RequestID, parts})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []policy.Approval
	for _, a := range all {
		if !denied[a.id] {
			out = append(out, a.parts...)
		}
	}
	return out, nil
}

// approvalParts decodes the parts of an approval record; an approval by a
// remembered decision teaches nothing.
func approvalParts(r audit.Record) []policy.Approval {
	var d struct {
		Remembered string              `json:"remembered"`
		Parts      []map[string]string `json:"parts"`
	}
	if json.Unmarshal(r.Detail, &d) != nil || d.Remembered != "" {
		return nil
	}
	var out []policy.Approval
	for _, p := range d.Parts {
		out = append(out, policy.Approval{Trigger: policy.Trigger(p["trigger"]), Subject: p["subject"],
			Propose: p["propose"], Time: r.Time})
	}
	return out
}

// Bounds of the offer made after an approval.
const (
	// LearnMin approvals of one shape make a rule worth offering: the
	// third approval of the same thing.
	LearnMin = 3
	// LearnWindow is how far back the approvals are counted.
	LearnWindow = 7 * 24 * time.Hour
)

// Offer is the rule offered after req was approved once: when the same
// shape has been approved LearnMin times in LearnWindow (the verified
// audit log counts) and no rule covers it yet. Only requests with one
// escalated part qualify; part is it, and sugg.Pattern the rule.
func Offer(ctx context.Context, f folder.Folder, st *userstate.State, req *queue.Request, now time.Time) (part policy.Part, sugg policy.Suggestion, ok bool) {
	e, _, err := store.Load(f, st, slog.New(slog.DiscardHandler))
	if err != nil {
		return part, sugg, false
	}
	var esc []policy.Part
	for _, p := range Classify(e, req).Parts {
		if p.Decision == policy.Escalate {
			esc = append(esc, p)
		}
	}
	if len(esc) != 1 {
		return part, sugg, false
	}
	approvals, err := LearnedApprovals(ctx, f, st, now.Add(-LearnWindow))
	if err != nil {
		return part, sugg, false
	}
	sugg, ok = e.LearnFor(approvals, esc[0], LearnMin)
	return esc[0], sugg, ok
}
