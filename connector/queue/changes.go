package queue

import (
	"context"
	"fmt"
	"os"
	"time"
)

// changesPoll is how often Changes looks when it has to poll.
const changesPoll = 250 * time.Millisecond

// Changes returns a channel that receives a (coalesced) signal whenever
// pending/, claimed/ or done/ change, and once at the start; approvers
// call Pending or List on each signal instead of polling. It uses file
// system notification, or polls the directories' modification times where
// that is unavailable. The channel is closed when ctx ends.
func (q *Queue) Changes(ctx context.Context) (<-chan struct{}, error) {
	out := make(chan struct{}, 1)
	out <- struct{}{}
	dirs := []string{q.f.Pending(), q.f.Claimed(), q.f.Done()}
	if !q.poll {
		if ch, stop, err := q.notify(ctx, "", dirs...); err == nil {
			go relay(ctx, ch, out, stop)
			return out, nil
		}
	}
	go pollDirs(ctx, dirs, fingerprint(dirs), out)
	return out, nil
}

func relay(ctx context.Context, in <-chan struct{}, out chan struct{}, stop func()) {
	defer close(out)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-in:
			signalOnce(out)
		}
	}
}

// pollDirs signals when the fingerprint differs from last, taken before
// the initial signal so that no change falls between the two.
func pollDirs(ctx context.Context, dirs []string, last string, out chan struct{}) {
	defer close(out)
	t := time.NewTicker(changesPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if now := fingerprint(dirs); now != last {
				last = now
				signalOnce(out)
			}
		}
	}
}

// fingerprint combines the directories' modification times, which change
// on every create, rename or remove inside them, and their sizes in names
// (for file systems with coarse times).
func fingerprint(dirs []string) string {
	var s string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil {
			names, _ := readNames(d)
			s += fmt.Sprintf("%s/%d|", fi.ModTime(), len(names))
		}
	}
	return s
}

func signalOnce(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
