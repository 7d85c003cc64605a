package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/remote"
)

func group(r remote.Request) string { return r.Host + "/" + r.Project }

// RemoteConfig configures RunRemote: `sandbox watch --nats`.
type RemoteConfig struct {
	// Where names what is watched in the banner (the organisation), As
	// the approver (the key's public half).
	Where, As string
	Source    remote.Source
	In        io.Reader
	Out       io.Writer
	Plain     bool
}

const remoteKeys = "[a] approve  [d] deny  [s] skip  [q] quit"

// remoteSession is the state of one `sandbox watch --nats`.
type remoteSession struct {
	terminal
	cfg       RemoteConfig
	pending   []remote.Request
	known     map[string]bool
	skipped   map[string]bool
	decided   map[string]bool // decided here: not shown again while its outcome travels
	status    string          // the connection state last printed
	changes   <-chan struct{}
	later     chan func()  // outcomes of decisions no longer waited for
	pushback  []inputEvent // input read while a decision travelled, for what comes next
	lastGroup string
}

// RunRemote shows the requests of every machine the approver's
// credentials reach, grouped by machine and project, one at a time as
// watch shows a folder's (escaped, paged, nothing approved before all of
// it was on the screen), and sends the human's signed decisions; an
// approval's output is shown live as its machine runs it.
func RunRemote(ctx context.Context, cfg RemoteConfig) error {
	s := &remoteSession{cfg: cfg, terminal: terminal{out: &termWriter{w: cfg.Out}, fd: -1, plain: cfg.Plain},
		known: map[string]bool{}, skipped: map[string]bool{}, decided: map[string]bool{}, changes: cfg.Source.Changes(), later: make(chan func(), 16)}
	restore := s.startInput(cfg.In, slog.Default())
	defer restore()
	s.out.printf("sandbox watch: team mode, %s (signing as %s)\n", display.EscapeLine(cfg.Where), cfg.As)
	if !s.plain {
		s.out.printf("keys: %s\n", remoteKeys)
	}
	s.refresh()
	for ctx.Err() == nil {
		var quit bool
		var err error
		if r := s.next(); r != nil {
			quit, err = s.ask(ctx, *r)
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
	return nil
}

// refresh takes the board's pending requests, announces the new ones and
// says when the connection comes or goes.
func (s *remoteSession) refresh() {
	st := "connecting"
	if up, err := s.cfg.Source.Status(); up {
		st = "connected"
	} else if err != nil {
		st = "NATS unavailable (" + err.Error() + "); connecting again"
	}
	if st != s.status {
		if s.status != "" && st != "connecting" {
			s.out.printf("\n%s\n", display.EscapeLine(st))
		}
		s.status = st
	}
	s.pending = s.cfg.Source.Pending()
	var fresh []remote.Request
	for _, r := range s.pending {
		if !s.known[r.Key()] {
			s.known[r.Key()] = true
			fresh = append(fresh, r)
		}
	}
	if len(fresh) == 0 {
		return
	}
	if s.redraw != nil && !s.plain {
		s.out.printf("\a\r\x1b[K(+%d new, %d pending) ", len(fresh), len(s.pending))
		s.redraw()
		return
	}
	s.out.printf("\a\n")
	for _, r := range fresh {
		s.out.printf("+ new request %s on %s/%s [%s] %s\n", r.ID, display.EscapeLine(r.Host), display.EscapeLine(r.Project),
			display.EscapeLine(r.Kind), display.EscapeLine(r.Summary))
	}
	s.out.printf("  %d pending\n", len(s.pending))
	if s.redraw != nil {
		s.redraw()
	}
}

func (s *remoteSession) next() *remote.Request {
	for i := range s.pending {
		if k := s.pending[i].Key(); !s.skipped[k] && !s.decided[k] {
			return &s.pending[i]
		}
	}
	return nil
}

func (s *remoteSession) isPending(r remote.Request) bool {
	for _, p := range s.pending {
		if p.Key() == r.Key() {
			return true
		}
	}
	return false
}

// waitEvent is watchSession.waitEvent over the board.
func (s *remoteSession) waitEvent(ctx context.Context, stop func() bool) (inputEvent, error) {
	for len(s.pushback) > 0 {
		ev := s.pushback[0]
		s.pushback = s.pushback[1:]
		if ev.err != nil {
			return ev, ev.err
		}
		if s.plain || !ev.at.Before(s.shownAt) {
			return ev, nil
		}
	}
	for {
		select {
		case <-ctx.Done():
			return inputEvent{}, ctx.Err()
		case <-s.changes:
		case show := <-s.later:
			show()
			if s.redraw != nil {
				s.redraw()
			}
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

func (s *remoteSession) idle(ctx context.Context) (bool, error) {
	prompt := func() {
		n := 0
		for _, r := range s.pending {
			if s.skipped[r.Key()] && !s.decided[r.Key()] {
				n++
			}
		}
		if n > 0 {
			s.out.printf("waiting for requests (%d skipped: [r] review them)  [q] quit\n", n)
			return
		}
		s.out.printf("waiting for requests  [q] quit\n")
	}
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
		}
	}
}

// show prints the request whole (paged), under a header naming its
// machine and project when they change.
func (s *remoteSession) show(r remote.Request) *pager {
	if g := group(r); g != s.lastGroup {
		s.lastGroup = g
		n := 0
		for _, p := range s.pending {
			if group(p) == g {
				n++
			}
		}
		s.out.printf("\n══ %s/%s · %d pending ══\n", display.EscapeLine(r.Host), display.EscapeLine(r.Project), n)
	}
	s.out.printf("\n")
	pg := &pager{lines: renderRemote(r, time.Now())}
	pg.next(s.out, s.pageSize())
	s.typeAheadFrom()
	return pg
}

// renderRemote is a remote request as lines: what it asks, escaped, and
// what the relay's policy and the writer said.
func renderRemote(r remote.Request, now time.Time) []string {
	var b strings.Builder
	fmt.Fprintf(&b, "request  %s  [%s]  on %s/%s (org %s)\n", r.ID, display.EscapeLine(r.Kind), display.EscapeLine(r.Host),
		display.EscapeLine(r.Project), display.EscapeLine(r.Org))
	fmt.Fprintf(&b, "hash     %s\n", r.Hash)
	fmt.Fprintf(&b, "raised   %s\n", when(r.Created, now))
	fmt.Fprintf(&b, "writer   agent %s, source %s, session %s (said by the request's writer, unverified)\n",
		display.EscapeLine(orNone(r.Agent)), display.EscapeLine(orNone(r.Source)), display.EscapeLine(orNone(r.Session)))
	for _, why := range r.Reasons {
		fmt.Fprintf(&b, "policy   %s\n", display.EscapeLine(why))
	}
	b.WriteString("\n")
	b.WriteString(display.Escape(r.Display))
	if r.Truncated {
		b.WriteString("\n[cut: approve it on its machine, where it is shown whole]")
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

func (s *remoteSession) ask(ctx context.Context, r remote.Request) (bool, error) {
	pg := s.show(r)
	prompt := func() {
		keys := remoteKeys
		if !pg.done() {
			keys = fmt.Sprintf("[space] next page (%d more lines)  [v] all of it  [d] deny  [s] skip  [q] quit  (approve once you have seen it all)", pg.left())
		}
		s.out.printf("%s %s/%s: %s > %s", r.ID, display.EscapeLine(r.Host), display.EscapeLine(r.Project), keys, s.eol())
	}
	s.setRedraw(prompt)
	defer s.setRedraw(nil)
	prompt()
	for {
		ev, err := s.waitEvent(ctx, func() bool { return !s.isPending(r) })
		if errors.Is(err, errStop) {
			s.out.printf("\n%s is no longer pending (decided elsewhere, withdrawn or expired)\n", r.ID)
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
			room := s.pageSize()
			if key == 'v' {
				room = page{}
			}
			if !pg.done() {
				pg.next(s.out, room)
				s.typeAheadFrom()
			}
		case 'a':
			switch {
			case r.Truncated:
				s.out.printf("✗ not approved: its display was cut; approve it on %s, where it is shown whole\n", display.EscapeLine(r.Host))
			case !pg.done():
				s.out.printf("✗ %s\n", pg.refusal())
			default:
				return false, s.decide(ctx, r, "approved", "")
			}
		case 'd':
			reason := arg
			if !s.plain {
				var err error
				reason, err = s.editLine("reason for the model (optional, Enter to send, Esc to cancel): ", "",
					func() (inputEvent, error) { return s.waitEvent(ctx, nil) })
				if errors.Is(err, errCancelled) {
					s.out.printf("cancelled; %s is still pending\n", r.ID)
					break
				}
				if err != nil {
					return false, err
				}
			}
			return false, s.decide(ctx, r, "denied", strings.TrimSpace(reason))
		case 's':
			s.skipped[r.Key()] = true
			s.out.printf("skipped %s (still pending; [r] when idle brings it back)\n", r.ID)
			return false, nil
		case 'q', keyEOF:
			return true, nil
		case '?', 'h':
			s.out.printf("a: approve (its machine runs it; its output is shown here)   d: deny (with a reason for the model)\n" +
				"space: next page   v: the rest of the request   s: leave it for later or another approver   q: quit\n")
		case 0:
			continue
		default:
			s.out.printf("unknown key; ? for help\n")
		}
		prompt()
	}
}

// decide sends the verdict and shows what its machine did with it. The
// machine may be slow or offline: [b] stops waiting (the decision stays
// sent, and how it ended is announced when it comes).
func (s *remoteSession) decide(ctx context.Context, r remote.Request, verdict, reason string) error {
	s.out.printf("%s %s on %s/%s: signed and sent; waiting for its machine  ([b] stop waiting: the decision stays sent)\n",
		verdict, r.ID, display.EscapeLine(r.Host), display.EscapeLine(r.Project))
	s.decided[r.Key()] = true
	write, flush := LiveOutput(s.out)
	var mu sync.Mutex
	live, away := false, false // guarded by mu
	type decided struct {
		out remote.Outcome
		err error
	}
	done := make(chan decided, 1)
	go func() {
		res, err := s.cfg.Source.Decide(ctx, r, verdict, reason, func(stream string, p []byte) {
			mu.Lock()
			defer mu.Unlock()
			if !away {
				live = true
				write(stream, p)
			}
		})
		done <- decided{res, err}
	}()
	in := s.in
	for {
		select {
		case d := <-done:
			mu.Lock()
			flush()
			streamed := live
			mu.Unlock()
			s.outcome(r, verdict, d.out, d.err, streamed, false)
			return nil
		case ev := <-in:
			if ev.err != nil {
				s.pushback = append(s.pushback, ev) // the end, after the outcome
				in = nil
				continue
			}
			if key, _ := s.command(ev); key != 'b' {
				s.pushback = append(s.pushback, ev) // for what comes next (a script's next line)
				continue
			}
			mu.Lock()
			flush()
			away = true
			mu.Unlock()
			s.out.printf("no longer waiting for %s: its outcome is shown when it comes\n", r.ID)
			go func() {
				d := <-done
				select {
				case s.later <- func() { s.outcome(r, verdict, d.out, d.err, false, true) }:
				case <-ctx.Done():
				}
			}()
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// outcome prints how a decided request ended; late is set for one the
// human stopped waiting for (its output is not shown: only its start, in
// the outcome).
func (s *remoteSession) outcome(r remote.Request, verdict string, res remote.Outcome, err error, streamed, late bool) {
	if late {
		s.out.printf("\a\n")
	}
	if err != nil {
		s.out.printf("✗ %s: %s\n", r.ID, display.EscapeLine(err.Error()))
		return
	}
	if !streamed && !late && res.Output != "" {
		w, f := LiveOutput(s.out)
		w("stdout", []byte(res.Output))
		f()
	}
	if res.Lost && !late {
		s.out.printf("   (some live output was lost on the way; the machine's results/ log has all of it)\n")
	}
	code := ""
	if res.ExitCode != nil {
		code = fmt.Sprintf(", exit %d", *res.ExitCode)
	}
	mark := "✓"
	if res.Decision != "approved" {
		mark = "✗"
	}
	s.out.printf("%s %s %s by %s%s\n", mark, r.ID, display.EscapeLine(res.Decision), display.EscapeLine(res.Approver), code)
	if res.Decision != verdict {
		s.out.printf("  (not as decided here: another approver, or its machine, was first)\n")
	}
}
