package queue

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// Defaults for the options.
const (
	DefaultMaxPending = 100
	DefaultExpiry     = time.Hour
	DefaultJoinWindow = 10 * time.Minute
)

// State is where a request is on the bus.
type State string

const (
	StatePending State = "pending"
	StateClaimed State = "claimed"
	StateDone    State = "done"
)

// Queue is one folder's escalation queue. It is safe for concurrent use
// by many goroutines; many processes may open the same folder at once.
type Queue struct {
	f          folder.Folder
	log        *slog.Logger
	maxPending int
	expiry     time.Duration
	joinWindow time.Duration
	poll       bool
	now        func() time.Time
	key        []byte // the per-user key (WithKey); nil: results neither signed nor verified
	// afterGateLost, when set (tests only), runs in Deny right after it
	// failed to create a gate because someone else's was there.
	afterGateLost func()

	mu sync.Mutex
	// waiters holds the waiter markers this Queue registered in Submit,
	// by request id, until Wait consumes them or Close releases them.
	waiters map[string][]*waiter

	// tmp and pending are the directories tmp/ and pending/ as Open found
	// them (see anchor); anchors keeps them open.
	tmp, pending string
	anchors      []*os.File
}

// Option configures Open.
type Option func(*Queue)

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(q *Queue) { q.log = l } }

// WithMaxPending sets how many requests may be pending at once (default 100).
func WithMaxPending(n int) Option { return func(q *Queue) { q.maxPending = n } }

// WithExpiry sets how long a request may stay pending (default 1 h).
func WithExpiry(d time.Duration) Option { return func(q *Queue) { q.expiry = d } }

// WithJoinWindow sets how long a finished request can still be joined
// (default 10 min).
func WithJoinWindow(d time.Duration) Option { return func(q *Queue) { q.joinWindow = d } }

// WithPolling makes Wait and Changes poll instead of using file system
// notification, as they do where notification is unavailable.
func WithPolling() Option { return func(q *Queue) { q.poll = true } }

// WithClock replaces time.Now (tests of expiry and the join window).
func WithClock(now func() time.Time) Option { return func(q *Queue) { q.now = now } }

// Open returns the queue of folder f, creating the queue directories that
// are missing. Every existing queue directory must be a real directory,
// not a link.
func Open(f folder.Folder, opts ...Option) (*Queue, error) {
	q := &Queue{
		f:          f,
		log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		maxPending: DefaultMaxPending,
		expiry:     DefaultExpiry,
		joinWindow: DefaultJoinWindow,
		now:        time.Now,
		waiters:    map[string][]*waiter{},
	}
	for _, o := range opts {
		o(q)
	}
	for _, d := range q.dirs() {
		if err := ensureDir(d, 0o755); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{q.f.Staging(), q.f.Quarantine()} {
		if err := ensureDir(d, 0o700); err != nil {
			return nil, err
		}
	}
	for _, d := range []*string{&q.tmp, &q.pending} {
		plain := q.f.Tmp()
		if d == &q.pending {
			plain = q.f.Pending()
		}
		p, f, err := anchor(plain)
		if err != nil {
			return nil, err
		}
		*d = p
		if f != nil {
			q.anchors = append(q.anchors, f)
		}
	}
	return q, nil
}

// TmpDir is tmp/ as Open found it: the trusted side lists and removes
// files there through it, never through a link planted since.
func (q *Queue) TmpDir() string { return q.tmp }

// Folder returns the folder this queue belongs to.
func (q *Queue) Folder() folder.Folder { return q.f }

func (q *Queue) dirs() []string {
	return []string{
		q.f.Dir(), q.f.Escalations(), q.f.Tmp(), q.f.Pending(), q.f.Claimed(),
		q.f.Done(), q.joinsDir(), q.waitersDir(),
	}
}

// joinsDir holds the join index and the bus lock.
func (q *Queue) joinsDir() string { return q.f.Joins() }

// waitersDir holds ID.RANDOM.lock per joined waiter and ID.gone.
func (q *Queue) waitersDir() string { return q.f.Waiters() }

func (q *Queue) path(s State, id string) string {
	var dir string
	switch s {
	case StatePending:
		dir = q.pending
	case StateClaimed:
		dir = q.f.Claimed()
	default:
		dir = q.f.Done()
	}
	return filepath.Join(dir, id+".json")
}

// ensureDir creates d with perm when missing; a private directory (perm
// 0700) made by an older version is narrowed to 0700, best effort.
func ensureDir(d string, perm os.FileMode) error {
	fi, err := os.Lstat(d)
	if os.IsNotExist(err) {
		if err := os.Mkdir(d, perm); err != nil && !os.IsExist(err) {
			return fmt.Errorf("queue dir: %w", err)
		}
		fi, err = os.Lstat(d)
	}
	if err != nil {
		return fmt.Errorf("queue dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %w", d, ErrUnsafeLayout)
	}
	if perm == 0o700 && fi.Mode().Perm()&0o077 != 0 {
		os.Chmod(d, perm)
	}
	return nil
}

// Close gives up the waits that Submit registered and no Wait consumed,
// without withdrawing anything: the requests stay for the human, and the
// other waiters of a joined request may withdraw it when they give up.
// The queue stays usable.
func (q *Queue) Close() error {
	q.mu.Lock()
	all := q.waiters
	q.waiters = map[string][]*waiter{}
	q.mu.Unlock()
	if len(all) == 0 {
		return nil
	}
	unlock, err := q.lockBus(context.Background())
	if err != nil {
		return err
	}
	defer unlock()
	for _, ws := range all {
		for _, w := range ws {
			w.release()
			if w.creator && q.open(w.id) {
				os.WriteFile(q.gonePath(w.id), nil, 0o644)
			}
		}
	}
	return nil
}
