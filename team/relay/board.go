package relay

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/team/natsconn"
)

// Board is a remote approver's live view of an organisation's pending
// requests (`sandbox watch --nats`, `sandbox serve --nats`): the streams
// read once on each connection, then kept up to date by subscriptions to
// new requests and to outcomes, and read again every Resync besides.
// It connects again by itself when the connection fails.
type Board struct {
	Org    string // a subject token
	Dial   func(context.Context) (*natsconn.Conn, error)
	Log    *slog.Logger
	Resync time.Duration // default 30 s

	mu      sync.Mutex
	c       *natsconn.Conn       // guarded by mu: nil while disconnected
	pending map[string]Request   // guarded by mu: by host.project.id
	ended   map[string]time.Time // guarded by mu: outcomes seen, and when (a request published again stays ended)
	err     error                // guarded by mu: why it is disconnected
	changed chan struct{}
}

// endedKept is how long the board remembers that a request ended: longer
// than the streams keep a request (seven days), after which nothing can
// bring it back; a board that runs for weeks does not grow with them.
const endedKept = 8 * 24 * time.Hour

func boardKey(host, project, id string) string { return host + "." + project + "." + id }

func (b *Board) init() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{}, 1)
		b.pending = map[string]Request{}
		b.ended = map[string]time.Time{}
	}
}

// Changes signals (coalesced) that Pending or the connection changed.
func (b *Board) Changes() <-chan struct{} {
	b.init()
	return b.changed
}

func (b *Board) signal() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

// Pending is what waits, oldest first (then by host, project and id).
func (b *Board) Pending() []Request {
	b.init()
	b.mu.Lock()
	out := make([]Request, 0, len(b.pending))
	for _, r := range b.pending {
		out = append(out, r)
	}
	b.mu.Unlock()
	slices.SortFunc(out, func(x, y Request) int {
		return cmp.Or(x.Created.Compare(y.Created), strings.Compare(x.Host, y.Host),
			strings.Compare(x.Project, y.Project), strings.Compare(x.ID, y.ID))
	})
	return out
}

// Get returns the pending request of host, project and id.
func (b *Board) Get(host, project, id string) (Request, bool) {
	b.init()
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.pending[boardKey(host, project, id)]
	return r, ok
}

// Status says whether the board is connected, and if not why (nil: it
// is connecting for the first time).
func (b *Board) Status() (bool, error) {
	b.init()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.c != nil, b.err
}

// Conn is the current connection, or why there is none.
func (b *Board) Conn() (*natsconn.Conn, error) {
	b.init()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return nil, cmp.Or(b.err, errors.New("not connected to NATS yet"))
	}
	return b.c, nil
}

func (b *Board) log() *slog.Logger {
	if b.Log != nil {
		return b.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Run keeps the board until ctx ends, connecting again (with a growing
// pause) whenever the connection fails.
func (b *Board) Run(ctx context.Context) error {
	b.init()
	return reconnect(ctx, b.session, func(err error, retry time.Duration) {
		b.mu.Lock()
		b.c, b.err = nil, err
		b.mu.Unlock()
		b.signal()
		b.log().Warn("NATS unavailable; connecting again", "err", err, "retry", retry)
	})
}

func (b *Board) session(ctx context.Context) error {
	c, err := b.Dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	// subscribed before the streams are read: nothing falls between
	reqs, err := c.Subscribe("sandbox.req."+b.Org+".>", 4096)
	if err != nil {
		return err
	}
	ress, err := c.Subscribe("sandbox.res."+b.Org+".>", 4096)
	if err != nil {
		return err
	}
	if err := c.Flush(ctx); err != nil {
		return err
	}
	var seq uint64 // the requests stream read up to here
	if err := b.resync(ctx, c, &seq); err != nil {
		return err
	}
	b.mu.Lock()
	b.c, b.err = c, nil
	b.mu.Unlock()
	b.signal()
	tick := time.NewTicker(cmp.Or(b.Resync, 30*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Done():
			return c.Err()
		case m, ok := <-reqs.C():
			if !ok {
				return c.Err()
			}
			b.request(m)
		case m, ok := <-ress.C():
			if !ok {
				return c.Err()
			}
			b.result(m)
		case <-tick.C:
			if reqs.Err() != nil || ress.Err() != nil {
				b.log().Warn("the board fell behind; reading the streams again")
			}
			if err := b.resync(ctx, c, &seq); err != nil {
				return err
			}
		}
	}
}

// resync reads the requests stored since the last look (all of them on
// a new connection: seq is 0), and drops what has an outcome: what the
// subscriptions may have missed.
func (b *Board) resync(ctx context.Context, c *natsconn.Conn, seq *uint64) error {
	fresh, last, err := requestsAfter(ctx, c, b.Org, *seq)
	if err != nil {
		return err
	}
	if *seq == 0 {
		b.mu.Lock()
		b.pending = map[string]Request{}
		b.mu.Unlock()
	}
	all := append(b.Pending(), fresh...)
	still, err := withoutOutcome(ctx, c, all)
	if err != nil {
		return err
	}
	keep := map[string]Request{}
	b.mu.Lock()
	for _, r := range still {
		if k := boardKey(r.Host, r.Project, r.ID); b.ended[k].IsZero() {
			keep[k] = r
		}
	}
	b.pending = keep
	b.forgetEnded(time.Now())
	b.mu.Unlock()
	*seq = last
	b.signal()
	return nil
}

// forgetEnded drops what ended more than endedKept before now. Called
// with mu held.
func (b *Board) forgetEnded(now time.Time) {
	for k, at := range b.ended {
		if now.Sub(at) > endedKept {
			delete(b.ended, k)
		}
	}
}

func (b *Board) request(m *natsconn.Msg) {
	var r Request
	if json.Unmarshal(m.Data, &r) != nil || r.Org != b.Org || !wellFormed(r.Org, r.Host, r.Project, r.ID) ||
		m.Subject != requestSubject(r.Org, r.Host, r.Project, r.ID) {
		return // not what a relay publishes: never shown
	}
	k := boardKey(r.Host, r.Project, r.ID)
	b.mu.Lock()
	if b.ended[k].IsZero() {
		b.pending[k] = r
	}
	b.mu.Unlock()
	b.signal()
}

func (b *Board) result(m *natsconn.Msg) {
	var res Result
	if json.Unmarshal(m.Data, &res) != nil || res.Org != b.Org || !wellFormed(res.Org, res.Host, res.Project, res.ID) ||
		m.Subject != resultSubject(res.Org, res.Host, res.Project, res.ID) {
		return
	}
	k := boardKey(res.Host, res.Project, res.ID)
	b.mu.Lock()
	delete(b.pending, k)
	b.ended[k] = time.Now()
	b.mu.Unlock()
	b.signal()
}
