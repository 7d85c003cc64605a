package queue

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// notify watches dirs and signals (coalesced) on every event for a name
// equal to name ("" matches every name) and on every watcher error
// (such as an overflow), after which the caller re-checks. stop ends it.
func (q *Queue) notify(ctx context.Context, name string, dirs ...string) (<-chan struct{}, func(), error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, fmt.Errorf("watch: %w", err)
	}
	for _, dir := range dirs {
		if err := w.Add(dir); err != nil {
			w.Close()
			return nil, nil, fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	ch := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(ctx)
	go forward(ctx, w, name, ch)
	return ch, func() { cancel(); ReleaseWatcher(w) }, nil
}

func forward(ctx context.Context, w *fsnotify.Watcher, name string, ch chan<- struct{}) {
	signal := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if name == "" || filepath.Base(ev.Name) == name {
				signal()
			}
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
			signal()
		}
	}
}
