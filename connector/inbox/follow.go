package inbox

import (
	"context"
	"log/slog"
	"slices"
	"time"
)

// FollowEvery is how often Follow reads the registry again. Reading it
// is a few small files per agent; a spawned agent's requests can wait
// that long before the approver opens its folder (its waiter waits for a
// human anyway).
const FollowEvery = 2 * time.Second

// Source lists the members of one repository's inbox, MAIN first, and
// logs on log what it leaves out. An error keeps the last list (and is
// logged).
type Source func(log *slog.Logger) ([]Member, error)

// Follow reads src now, then every `every` until ctx ends, and sends the
// list on the returned channel whenever it differs from the last one
// (agents spawned or removed, a state changed). The channel is closed
// when ctx ends; a receiver that is slow only misses intermediate lists.
func Follow(ctx context.Context, src Source, every time.Duration, log *slog.Logger) (first []Member, updates <-chan []Member, err error) {
	first, err = src(log)
	if err != nil {
		return nil, nil, err
	}
	ch := make(chan []Member, 1)
	go func() {
		defer close(ch)
		last := first
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			ms, err := src(log)
			if err != nil {
				log.Warn("agents registry unreadable; keeping the last list", "err", err)
				continue
			}
			if slices.Equal(ms, last) {
				continue
			}
			last = ms
			select { // replace a list not taken yet
			case <-ch:
			default:
			}
			ch <- ms
		}
	}()
	return first, ch, nil
}
