package approver

import (
	"context"
	"log/slog"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// DefaultPoll is how often Notify looks at a directory when the kernel
// cannot tell it about changes.
const DefaultPoll = time.Second

// Notify reports changes in dir (a request arriving in pending/, a result
// in done/, output in results/) on the returned channel, coalesced: one
// value may stand for many changes. It uses fsnotify and falls back to
// polling every poll interval, saying so on logger. The channel is closed
// when ctx ends. Idle, it costs nothing: no timer runs while fsnotify works.
func Notify(ctx context.Context, dir string, poll time.Duration, logger *slog.Logger) <-chan struct{} {
	ch := make(chan struct{}, 1)
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(dir); err != nil {
			w.Close()
		}
	}
	if err != nil {
		logger.Warn("file notification unavailable; polling", "dir", dir, "every", poll, "err", err)
		go pollLoop(ctx, ch, poll)
		return ch
	}
	go watchLoop(ctx, w, ch, logger)
	return ch
}

func signal(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func watchLoop(ctx context.Context, w *fsnotify.Watcher, ch chan struct{}, logger *slog.Logger) {
	defer close(ch)
	defer queue.ReleaseWatcher(w) // not w.Close(): see there
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-w.Events:
			if !ok {
				return
			}
			signal(ch)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			// An overflow loses events: tell the reader to look again.
			logger.Warn("file notification error", "err", err)
			signal(ch)
		}
	}
}

func pollLoop(ctx context.Context, ch chan struct{}, poll time.Duration) {
	defer close(ch)
	if poll <= 0 {
		poll = DefaultPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			signal(ch)
		}
	}
}
