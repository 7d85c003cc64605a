package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// errAuditUntrusted: the audit log fails verification, so nothing is
// learned from it (a forged record must not become a rule).
var errAuditUntrusted = errors.New("the audit log fails verification")

// humanActors are the approvers whose approvals teach rules: a human at
// watch, the dashboard or the CLI; never CI's automatic decisions or a
// remembered decision.
var humanActors = map[string]bool{
	"approver:" + approver.SurfaceWatch: true,
	"approver:" + approver.SurfaceServe: true,
	"approver:" + approver.SurfaceCLI:   true,
}

// learnedApprovals verifies f's audit log, then returns the escalated
// parts that humans approved since since: from request.approved records
// (which name the parts the approval lifted, as the approver's policy
// decided them), leaving out requests also denied (a deny that won the
// race) and every record that is not authentic.
func learnedApprovals(ctx context.Context, f folder.Folder, st *userstate.State, since time.Time) ([]policy.Approval, error) {
	rep, err := audit.Verify(f, st)
	if err != nil {
		return nil, err
	}
	if !rep.OK {
		return nil, fmt.Errorf("%w: %s", errAuditUntrusted, rep.FirstBad)
	}
	denied := map[string]bool{}
	type approved struct {
		id    string
		parts []policy.Approval
	}
	var all []approved
	err = audit.Read(ctx, f, st.Key, 0, func(r audit.Record) error {
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
