package watch

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// recoverEvery is the slow tick at which watch looks at the queues even
// without a notification (expiry, approvers that died). Idle otherwise.
const recoverEvery = 10 * time.Second

// errStop ends a wait because what it waited for no longer holds (the
// request shown was decided elsewhere, or one arrived while idle).
var errStop = errors.New("stop waiting")

// watchFolder is one folder watched by `sandbox watch`.
type watchFolder struct {
	env   *Folder
	tag   inbox.Tag // in a repository's inbox: whose folder it is
	close func()    // stops following it and closes what Open opened
}

// pendingItem is one pending request on screen.
type pendingItem struct {
	wf  *watchFolder
	req *queue.Request
}

func (it pendingItem) group() string {
	return it.wf.env.Folder.Root + "\x00" + it.req.Agent + "\x00" + it.req.Session
}

// watchSession is the state of one `sandbox watch`: the requests pending
// in every folder, grouped by folder and session, and the human's input.
type watchSession struct {
	terminal
	folders []*watchFolder
	changed chan struct{}
	log     *slog.Logger
	openEnv func(folder.Folder, *slog.Logger) (*Folder, func(), error)
	inbox   bool                  // watching a repository's inbox (tags, agents line)
	updates <-chan []inbox.Member // the inbox's members as the registry changes
	notify  *inbox.Notifier
	states  string         // the agents line last printed
	members []inbox.Member // the inbox's members as last read
	forAll  bool           // the "always" being taken is for all agents ([L])

	pending   []pendingItem
	known     map[string]bool // ids already announced
	skipped   map[string]bool
	autoTried map[string]bool // ids whose remembered decisions were looked up
	problems  map[string]bool // quarantine reports already shown
	arrived   int             // requests that arrived while the current one was on screen
	lastGroup string
}

// follow fans a folder's change channel into s.changed.
func (s *watchSession) follow(ch <-chan struct{}) {
	go func() {
		for range ch {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		}
	}()
}

// waitEvent returns the next input event. Meanwhile it follows the
// queues: new requests are announced with the terminal bell, and when
// stop reports true after a change the wait ends with errStop. Keys typed
// before the current request was shown are dropped (type-ahead never
// decides a request the human has not seen).
func (s *watchSession) waitEvent(ctx context.Context, stop func() bool) (inputEvent, error) {
	tick := time.NewTicker(recoverEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return inputEvent{}, ctx.Err()
		case <-s.changed:
		case ms, ok := <-s.updates:
			if !ok {
				s.updates = nil
				continue
			}
			s.sync(ctx, ms)
		case <-tick.C:
			s.checkPolicy()
			s.retryOpen(ctx)
		case ev := <-s.in:
			if ev.err != nil {
				return ev, ev.err
			}
			if !s.plain && ev.at.Before(s.shownAt) {
				continue
			}
			return ev, nil
		}
		s.refresh()
		if stop != nil && stop() {
			return inputEvent{}, errStop
		}
	}
}

// refresh reloads the pending requests of every folder and announces the
// new ones.
func (s *watchSession) refresh() {
	var all []pendingItem
	for _, wf := range s.folders {
		reqs, problems := wf.env.Approver.Queue().Pending()
		s.report(wf, problems)
		for _, r := range reqs {
			all = append(all, pendingItem{wf: wf, req: r})
		}
		if s.inbox {
			s.notify.Update(wf.tag, reqs)
		}
	}
	slices.SortStableFunc(all, func(a, b pendingItem) int {
		if c := strings.Compare(a.group(), b.group()); c != 0 {
			return c
		}
		return strings.Compare(a.req.ID, b.req.ID)
	})
	s.pending = all
	s.announce()
	if s.redraw == nil {
		s.printAgents() // idle: nothing on the screen to scroll away
	}
}

// announce prints one line per request not seen before, and rings the bell.
func (s *watchSession) announce() {
	var fresh []pendingItem
	for _, it := range s.pending {
		if !s.known[it.req.ID] {
			s.known[it.req.ID] = true
			fresh = append(fresh, it)
		}
	}
	if len(fresh) == 0 {
		return
	}
	if s.redraw != nil && !s.plain {
		// A request (or a line being typed) is on the screen: new
		// arrivals must not scroll it away. The prompt's own line is
		// rewritten with a count instead of printing them; they are
		// shown in full when their turn comes.
		s.arrived += len(fresh)
		s.out.printf("\a\r\x1b[K(+%d new, %d pending) ", s.arrived, len(s.pending))
		s.redraw()
		return
	}
	s.out.printf("\a\n")
	for _, it := range fresh {
		if s.tagged() {
			s.out.printf("+ new request %s [%s] %s  [%s]  (client %s, session %s)\n", it.req.ID, it.req.Kind,
				queue.Summarize(it.req), tagLabel(it.wf.tag), display.EscapeLine(orNone(it.req.Agent)), display.EscapeLine(orNone(it.req.Session)))
		} else {
			s.out.printf("+ new request %s [%s] %s  (agent %s, session %s)\n", it.req.ID, it.req.Kind,
				queue.Summarize(it.req), display.EscapeLine(orNone(it.req.Agent)), display.EscapeLine(orNone(it.req.Session)))
		}
		if h := it.wf.env.Review.Review(it.req).Headline(3); h != "" {
			s.out.printf("    %s\n", h)
		}
	}
	s.out.printf("  %d pending\n", len(s.pending))
	if s.redraw != nil {
		s.redraw()
	}
}

// report shows (once) and audits the bad files the queue quarantined.
func (s *watchSession) report(wf *watchFolder, problems []queue.Problem) {
	for _, p := range problems {
		key := wf.env.Folder.Root + "\x00" + p.String()
		if s.problems[key] {
			continue
		}
		s.problems[key] = true
		s.out.printf("! %s\n", p.String())
		if p.Quarantined == "" {
			continue
		}
		_, err := wf.env.Audit.Append(audit.Entry{
			Actor: "approver:watch", Event: "request.quarantined", Decision: "quarantined",
			Detail: map[string]any{"file": display.EscapeLine(p.Name), "state": string(p.State), "error": p.Err.Error()},
		})
		if err != nil {
			s.log.Error("could not audit a quarantined file", "err", err)
		}
	}
}

// next is the first pending request not skipped.
func (s *watchSession) next() *pendingItem {
	for i := range s.pending {
		if !s.skipped[s.pending[i].req.ID] {
			return &s.pending[i]
		}
	}
	return nil
}

func (s *watchSession) isPending(id string) bool {
	return slices.ContainsFunc(s.pending, func(it pendingItem) bool { return it.req.ID == id })
}

// startInput reads the human's input: single keys from a terminal in raw
// mode, else whole lines.
func startInput(r io.Reader, raw bool) <-chan inputEvent {
	ch := make(chan inputEvent)
	if raw {
		go readKeys(r, ch)
	} else {
		go readLines(r, ch)
	}
	return ch
}
