package watch

import (
	"context"
	"log/slog"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// learnOffer is the rule offered: the request's one escalated part and
// the suggestion (its Pattern is what would be remembered).
type learnOffer struct {
	part policy.Part
	sugg policy.Suggestion
}

// offerLearned asks, with one key, whether to remember the rule that
// would have spared the human's repeated approvals of this shape. Nothing
// changes without the key; the remembered decision is audited first.
func (s *watchSession) offerLearned(ctx context.Context, it pendingItem) error {
	part, sugg, ok := approver.Offer(ctx, it.wf.env.Folder, it.wf.env.State, it.req, time.Now())
	if !ok {
		return nil
	}
	o := learnOffer{part: part, sugg: sugg}
	s.out.printf("\n? %s\n  [y] always allow %s `%s` in this folder (a remembered decision)   any other key: no > %s",
		display.EscapeLine(o.sugg.Summary()), o.sugg.Trigger, display.EscapeLine(o.sugg.Pattern), s.eol())
	s.typeAheadFrom()
	ev, err := s.waitEvent(ctx, func() bool { return false })
	if err != nil {
		return err
	}
	key, _ := s.command(ev)
	if !s.plain && key != 0 && key != keyEOF {
		s.out.printf("%c\n", key)
	}
	if key != 'y' {
		s.out.printf("not remembered\n")
		return nil
	}
	who := approver.NewIdentity(approver.SurfaceWatch)
	if _, err := it.wf.env.Audit.Append(audit.Entry{Actor: "approver:watch", Event: "remembered.learned",
		RequestID: it.req.ID, Decision: "allow", ContentHash: it.req.Hash,
		Detail: map[string]any{"user": who.User, "pattern": o.sugg.Pattern, "trigger": string(o.sugg.Trigger)}}); err != nil {
		s.out.printf("! not remembered: %v\n", err)
		return nil
	}
	mem := approver.NewPolicyMemory(it.wf.env.Folder, it.wf.env.State, slog.New(slog.DiscardHandler))
	if err := mem.Remember(it.req, o.sugg.Pattern, who); err != nil {
		s.out.printf("! not remembered: %v\n", err)
		return nil
	}
	clear(s.autoTried)
	s.out.printf("remembered: %s `%s` (`sandbox remembered list` shows it, `sandbox remembered forget` takes it back)\n",
		o.sugg.Trigger, display.EscapeLine(o.sugg.Pattern))
	return nil
}
