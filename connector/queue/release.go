package queue

import (
	"time"

	"github.com/fsnotify/fsnotify"
)

// releaseDelay is how long ReleaseWatcher waits before it closes a
// watcher whose watches it removed: the kernel reaps them in well under
// a millisecond here.
const releaseDelay = 50 * time.Millisecond

// ReleaseWatcher closes w without stalling its caller or the process's
// exit. Linux destroys an inotify instance that still holds watches by
// waiting for an SRCU grace period: closing one, or exiting while holding
// one, takes 10-15 ms here (a run's end, a hook's answer after a wait).
// With its watches removed first, the kernel reaps them in the background
// and a close a little later is immediate; so ReleaseWatcher removes the
// watches now and closes w shortly after (a process that exits sooner
// closes it then, also without the wait).
func ReleaseWatcher(w *fsnotify.Watcher) {
	for _, p := range w.WatchList() {
		_ = w.Remove(p)
	}
	time.AfterFunc(releaseDelay, func() { _ = w.Close() })
}
