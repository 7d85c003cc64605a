package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

const (
	watchKeys = "[a] approve once  [A] approve always  [d] deny  [s] skip  [p] policy  [q] quit"
	inboxKeys = "[a] approve once  [A] always, this agent  [L] always, all agents  [d] deny  [s] skip  [p] policy  [q] quit"
)

// run shows pending requests one at a time until the human quits, the
// input ends or ctx is cancelled.
func (s *watchSession) run(ctx context.Context) error {
	s.refresh()
	for {
		if ctx.Err() != nil {
			return nil
		}
		if s.autoDecide(ctx) {
			continue
		}
		var quit bool
		var err error
		if it := s.next(); it != nil {
			quit, err = s.ask(ctx, *it)
		} else {
			quit, err = s.idle(ctx)
		}
		switch {
		case quit, errors.Is(err, io.EOF), errors.Is(err, context.Canceled):
			return nil
		case err != nil:
			return err
		}
	}
}

// idle waits for requests; it returns when one arrives.
func (s *watchSession) idle(ctx context.Context) (quit bool, err error) {
	prompt := func() {
		n := len(s.pending)
		if n > 0 {
			s.out.printf("waiting for requests (%d skipped: [r] review them)  [p] policy  [q] quit\n", n)
			return
		}
		s.out.printf("waiting for requests  [p] policy  [q] quit\n")
	}
	s.setRedraw(nil)
	prompt()
	for {
		ev, err := s.waitEvent(ctx, func() bool { return s.next() != nil })
		if errors.Is(err, errStop) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		switch key, _ := s.command(ev); key {
		case 'q', keyEOF:
			return true, nil
		case 'r':
			clear(s.skipped)
			return false, nil
		case 'p':
			if err := s.policy(ctx); err != nil {
				return false, err
			}
			prompt()
		}
	}
}

// ask shows one request and acts on the human's key. The approve keys do
// nothing until the whole request has been on the screen (see pager), and
// a request nobody waits for any more needs a confirmation.
func (s *watchSession) ask(ctx context.Context, it pendingItem) (quit bool, err error) {
	pg := s.show(it)
	s.arrived = 0
	prompt := func() {
		keys := watchKeys
		if s.tagged() {
			keys = inboxKeys
			if n := len(s.siblings(it)); n > 0 {
				keys += fmt.Sprintf("  [b] approve in all %d agents", n+1)
			}
		}
		if !pg.done() {
			keys = fmt.Sprintf("[space] next page (%d more lines)  [v] all of it  [d] deny  [s] skip  [p] policy  [q] quit  (approve once you have seen it all)", pg.left())
		}
		// The prompt names the request it acts on: what is above it
		// may be another request's announcement or output.
		s.out.printf("%s %s: %s > %s", it.req.ID, display.Truncate(queue.Summarize(it.req), 32), keys, s.eol())
	}
	s.setRedraw(prompt)
	defer s.setRedraw(nil)
	prompt()
	for {
		ev, err := s.waitEvent(ctx, func() bool { return !s.isPending(it.req.ID) })
		if errors.Is(err, errStop) {
			s.out.printf("\n%s is no longer pending (decided elsewhere, withdrawn or expired)\n", it.req.ID)
			return false, nil
		}
		if err != nil {
			return false, err
		}
		key, arg := s.command(ev)
		if !s.plain && key != 0 && key != keyEOF {
			s.out.printf("%c\n", key)
		}
		switch key {
		case ' ', 'v':
			if pg.done() {
				s.out.printf("all of it is on the screen\n")
				break
			}
			room := s.pageSize()
			if key == 'v' {
				room = page{}
			}
			pg.next(s.out, room)
			s.typeAheadFrom()
		case 'a', 'A', 'L', 'b':
			if (key == 'L' || key == 'b') && !s.tagged() {
				s.out.printf("unknown key; ? for help\n")
				break
			}
			if pg.rv.Refused != "" {
				s.out.printf("✗ not approved: %s; it would be refused whatever is decided: [d] deny it\n", pg.rv.Refused)
				break
			}
			if !pg.done() {
				s.out.printf("✗ %s\n", pg.refusal())
				break
			}
			if pg.rv.Stale != "" {
				ok, err := s.confirmStale(ctx, it, pg.rv.Stale)
				if err != nil || !ok {
					if err == nil {
						s.out.printf("not approved; %s is still pending\n", it.req.ID)
						break
					}
					return false, err
				}
			}
			switch key {
			case 'a':
				if err := s.approve(ctx, it, false, ""); err != nil {
					return false, err
				}
				return false, s.offerLearned(ctx, it)
			case 'b':
				return false, s.approveBatch(ctx, it)
			case 'L':
				s.forAll = true
				defer func() { s.forAll = false }()
			}
			return false, s.approveAlways(ctx, it, pg.rv, arg)
		case 'd':
			return false, s.deny(ctx, it, arg)
		case 's':
			s.skipped[it.req.ID] = true
			s.out.printf("skipped %s (still pending; [r] when idle brings it back)\n", it.req.ID)
			return false, nil
		case 'q', keyEOF:
			return true, nil
		case 'p':
			if err := s.policy(ctx); err != nil {
				return false, err
			}
			pg = s.show(it)
		case '?', 'h':
			s.out.printf("a: run it once   A: run it and remember a pattern   d: deny (with a reason for the model)\n" +
				"space: next page   v: the rest of the request   (a and A work once all of it has been shown)\n" +
				"s: leave it for later or another approver   p: pending policy changes   q: quit\n")
			if s.tagged() {
				s.out.printf("L: as A, and remember it for MAIN and every agent   b: approve the same request once in every agent it waits in\n")
			}
		case 0:
			continue
		default:
			s.out.printf("unknown key; ? for help\n")
		}
		prompt()
	}
}

// confirmStale asks for a deliberate second key before approving a
// request whose requester stopped waiting: its output would reach nobody.
func (s *watchSession) confirmStale(ctx context.Context, it pendingItem, why string) (bool, error) {
	return s.confirmKey(ctx, fmt.Sprintf("! %s is stale: %s.\n  Run it anyway? [y] yes, run it   any other key: no > ", it.req.ID, why),
		func() bool { return !s.isPending(it.req.ID) })
}

// confirmKey asks a yes/no question answered, like every other action,
// by one key ([y]; a line starting with y in plain mode). Keys typed
// before the question was shown do not answer it. stop, when it reports
// true after a change, ends the question with no.
func (s *watchSession) confirmKey(ctx context.Context, question string, stop func() bool) (bool, error) {
	s.out.printf("%s%s", question, s.eol())
	s.typeAheadFrom()
	ev, err := s.waitEvent(ctx, stop)
	if err != nil {
		if errors.Is(err, errStop) {
			return false, nil
		}
		return false, err
	}
	key, _ := s.command(ev)
	if !s.plain && key != 0 && key != keyEOF {
		s.out.printf("%c\n", key)
	}
	return key == 'y' || key == 'Y', nil
}

// show prints the request (with its group header when the folder or
// session changes), its first page, and starts ignoring keys typed before
// it appeared.
func (s *watchSession) show(it pendingItem) *pager {
	if g := it.group(); g != s.lastGroup {
		s.lastGroup = g
		n := 0
		for _, p := range s.pending {
			if p.group() == g {
				n++
			}
		}
		if s.tagged() {
			s.printAgents()
			s.out.printf("\n══ %s · client %s · session %s · %d pending ══\n", tagLabel(it.wf.tag),
				display.EscapeLine(orNone(it.req.Agent)), display.EscapeLine(orNone(it.req.Session)), n)
		} else {
			s.out.printf("\n══ %s · agent %s · session %s · %d pending ══\n", it.wf.env.Folder.Root,
				display.EscapeLine(orNone(it.req.Agent)), display.EscapeLine(orNone(it.req.Session)), n)
		}
	}
	s.out.printf("\n")
	o := RenderOptions{Now: time.Now()}
	if len(s.folders) > 1 {
		o.Folder = it.wf.env.Folder.Root
	}
	if s.tagged() {
		o.Tag = &it.wf.tag
	}
	pg := newPager(it, o)
	pg.next(s.out, s.pageSize())
	s.batchNote(it)
	s.typeAheadFrom()
	return pg
}

func (s *watchSession) approveAlways(ctx context.Context, it pendingItem, rv *review.Review, arg string) error {
	m := it.wf.env.Approver
	if len(rv.Always) > 1 {
		return s.approveAlwaysParts(ctx, it, arg)
	}
	proposed, err := m.Propose(it.req)
	if err != nil {
		s.out.printf("approve always is not available: %v\n", err)
		return nil
	}
	general := ""
	if len(rv.Always) == 1 {
		general = rv.Always[0].General
	}
	pattern := arg
	if !s.plain {
		prompt := "pattern (Enter to accept, Esc to cancel): "
		if general != "" {
			prompt = "pattern (Enter: the exact one; g: the general `" + general + "`; Esc to cancel): "
		}
		pattern, err = s.readLine(ctx, prompt, proposed)
		if errors.Is(err, errCancelled) {
			s.out.printf("cancelled; %s is still pending\n", it.req.ID)
			return nil
		}
		if err != nil {
			return err
		}
	}
	switch p := strings.TrimSpace(pattern); {
	case p == "":
		pattern = proposed
	case p == "g" && general != "":
		pattern = generalPattern(it, general)
	case p == "g":
		s.out.printf("no general pattern for this request; %s is still pending\n", it.req.ID)
		return nil
	}
	err = s.approve(ctx, it, true, strings.TrimSpace(pattern))
	clear(s.autoTried) // the new remembered decision may settle requests already seen
	return err
}

// generalPattern is the unescaped general pattern of it's one escalated
// part, recomputed (rv holds escaped text for the screen); the escaped
// one when they differ (the approver then refuses it if it does not
// cover the request).
func generalPattern(it pendingItem, shown string) string {
	f := it.wf.env.Review.Facts(it.req)
	for _, pr := range f.Always {
		if display.EscapeLine(pr.General) == shown {
			return pr.General
		}
	}
	return shown
}

func (s *watchSession) deny(ctx context.Context, it pendingItem, reason string) error {
	if !s.plain {
		var err error
		reason, err = s.readLine(ctx, "reason for the model (optional, Enter to send, Esc to cancel): ", "")
		if errors.Is(err, errCancelled) {
			s.out.printf("cancelled; %s is still pending\n", it.req.ID)
			return nil
		}
		if err != nil {
			return err
		}
	}
	res, err := it.wf.env.Approver.Deny(ctx, it.req.ID, strings.TrimSpace(reason))
	s.refresh()
	if err != nil {
		s.out.printf("✗ %v\n", err)
		return nil
	}
	who := "you"
	if res != nil && res.Approver.User != "" {
		who = res.Approver.User
	}
	s.out.printf("✗ denied %s (%s)\n", it.req.ID, who)
	return nil
}
