package watch

import (
	"context"
	"errors"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// approveAlwaysParts is "approve always" of a request with several
// escalated parts: one rule per part, each shown and chosen before it is
// taken ([Enter] the exact pattern, g the general one, n none: the whole
// is then not remembered). In plain mode arg holds one choice per part
// ("e g"; missing ones are exact). A part no rule can cover says why, and
// the request can then only be approved once.
func (s *watchSession) approveAlwaysParts(ctx context.Context, it pendingItem, arg string) error {
	props := it.wf.env.Review.Facts(it.req).Always
	choices := strings.Fields(arg)
	var rules []policy.Remembered
	for i, pr := range props {
		label := display.EscapeLine(string(pr.Trigger) + " " + pr.Subject)
		if pr.Exact == "" {
			s.out.printf("part %d/%d %s: no rule can cover it: %s\n  approve it once instead ([a]); %s is still pending\n",
				i+1, len(props), label, display.EscapeLine(pr.Why), it.req.ID)
			return nil
		}
		line := "part %d/%d %s: [Enter] exact `%s`"
		args := []any{i + 1, len(props), label, display.EscapeLine(pr.Exact)}
		if pr.General != "" {
			line += "  [g] general `%s`"
			args = append(args, display.EscapeLine(pr.General))
		}
		s.out.printf(line+"  [n] cancel\n", args...)
		choice := ""
		if i < len(choices) {
			choice = choices[i]
		}
		if !s.plain {
			var err error
			choice, err = s.readLine(ctx, "rule for this part: ", "")
			if errors.Is(err, errCancelled) {
				choice = "n"
			} else if err != nil {
				return err
			}
		}
		pattern := pr.Exact
		switch strings.TrimSpace(choice) {
		case "", "e":
		case "g":
			if pr.General == "" {
				s.out.printf("no general pattern for this part; %s is still pending\n", it.req.ID)
				return nil
			}
			pattern = pr.General
		default:
			s.out.printf("cancelled; %s is still pending\n", it.req.ID)
			return nil
		}
		rules = append(rules, policy.Remembered{Trigger: pr.Trigger, Tier: policy.Allow, Pattern: pattern})
	}
	err := s.runApprove(ctx, it, approver.ApproveOptions{ShownHash: it.req.Hash, Always: true, Rules: rules})
	clear(s.autoTried)
	return err
}
