package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/policy/textdiff"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// interruptedShown is how far back watch reports interrupted requests.
const interruptedShown = 24 * time.Hour

// checkPolicy announces (once per content) a policy.yaml that differs
// from the accepted policy.
func (s *watchSession) checkPolicy() {
	for _, wf := range s.folders {
		current, _, changed, err := store.Pending(wf.env.Folder, wf.env.State)
		if err != nil || !changed || current == nil {
			continue
		}
		sum := sha256.Sum256(current)
		key := wf.env.Folder.Root + "\x00" + hex.EncodeToString(sum[:])
		if s.problems[key] {
			continue
		}
		s.problems[key] = true
		s.out.printf("\a! %s has changes that are not accepted yet: [p] to review them\n", wf.env.Folder.Policy())
		if s.redraw != nil {
			s.redraw()
		}
	}
}

// policy shows each folder's pending policy change with its diff and
// lets the human accept it.
func (s *watchSession) policy(ctx context.Context) error {
	any := false
	for _, wf := range s.folders {
		current, accepted, changed, err := store.Pending(wf.env.Folder, wf.env.State)
		if err != nil {
			s.out.printf("! %s: %v\n", wf.env.Folder.Root, err)
			continue
		}
		if !changed || current == nil {
			continue
		}
		any = true
		if err := s.reviewPolicy(ctx, wf, accepted, current); err != nil {
			return err
		}
	}
	if !any {
		s.out.printf("no pending policy changes\n")
	}
	return nil
}

func (s *watchSession) reviewPolicy(ctx context.Context, wf *watchFolder, accepted, current []byte) error {
	from := "accepted policy"
	if accepted == nil {
		from = "/dev/null (nothing accepted)"
	}
	s.out.printf("\n── pending policy change in %s\n", wf.env.Folder.Root)
	s.out.printf("%s", display.Escape(textdiff.UnifiedDiff(from, ".sandbox/policy.yaml", accepted, current)))
	if _, err := policy.Parse(wf.env.Folder.Policy(), current); err != nil {
		s.out.printf("the new policy is invalid and cannot be accepted:\n%s\n", display.Escape(err.Error()))
		return nil
	}
	ok, err := s.confirmKey(ctx, "accept this policy? [y] accept it   any other key: no > ", nil)
	if err != nil {
		return err
	}
	if !ok {
		s.out.printf("not accepted; the accepted policy stays in force\n")
		return nil
	}
	sum := sha256.Sum256(current)
	if _, err := wf.env.Audit.Append(audit.Entry{Actor: "approver:watch", Event: "policy.accepted",
		Decision: "accepted", Detail: map[string]any{"sha256": hex.EncodeToString(sum[:])}}); err != nil {
		s.out.printf("! refused: %v\n", err)
		return nil
	}
	if err := store.Accept(wf.env.Folder, wf.env.State, current); err != nil {
		s.out.printf("! %v\n", err)
		return nil
	}
	s.out.printf("accepted; it is in force from now on\n")
	return nil
}

// showInterrupted tells the human, at start, about requests whose
// approver died after claiming them (Recover has just completed them as
// `interrupted`): they are never run again by themselves.
func (s *watchSession) showInterrupted() {
	for _, wf := range s.folders {
		s.report(wf, wf.env.Approver.Queue().Recover())
		done, problems := wf.env.Approver.Queue().List(queue.StateDone)
		s.report(wf, problems)
		for _, it := range done {
			if it.Decision != queue.Interrupted || time.Since(it.Created) > interruptedShown {
				continue
			}
			s.out.printf("! interrupted: %s [%s] %s (its approver stopped; not run again: ask again if needed)\n",
				it.ID, it.Kind, it.Summary)
		}
	}
}
