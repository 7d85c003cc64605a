package audit

import (
	"io"
	"log/slog"
	"time"
)

// Durability says when an appended record reaches the disk. Whatever the
// choice, every Append is one write(2) of a whole line under the file lock,
// so a record survives the death of any process (kill -9) once Append
// returns. docs/AUDIT.md has the measured costs.
type Durability int

const (
	// SyncEach (the default) fdatasyncs the log before Append returns: a
	// returned record survives a power loss too.
	SyncEach Durability = iota
	// SyncBatch fdatasyncs at most once per interval and on Close: an OS
	// crash or power loss can lose the records of the last interval.
	SyncBatch
)

func (d Durability) String() string {
	if d == SyncBatch {
		return "batch"
	}
	return "each"
}

type options struct {
	durability  Durability
	interval    time.Duration
	lockTimeout time.Duration
	logger      *slog.Logger
	now         func() time.Time
}

func defaultOptions() options {
	return options{
		durability:  SyncEach,
		interval:    100 * time.Millisecond,
		lockTimeout: 10 * time.Second,
		logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		now:         time.Now,
	}
}

// Option configures Open.
type Option func(*options)

// WithDurability chooses when records reach the disk (default SyncEach).
func WithDurability(d Durability) Option { return func(o *options) { o.durability = d } }

// WithLogger receives warnings: a torn tail recovered, a log that does not
// continue its anchored head, a failed background anchor.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}
