// Package resident lets a long-lived, mostly idle process of ours give
// back its mappings of the executable's code and read-only data once its
// start-up is over.
//
// Every process of ours is the same 22 MB binary. Starting one touches
// much of it (the runtime, every package's initialisation, the flags, the
// set-up of a jail), and the kernel maps the page cache's pages of all of
// that into the process, in large folios where the file is cached so
// (make build writes it so; readahead does too): an agent's supervisor and
// its jail's init each showed 15-18 MB of the executable resident while
// they sat waiting. Those pages are shared and stay in the page cache;
// what Release removes is this process's mapping of them, so that RSS
// says what an idle supervisor or init really uses, and the kernel may
// reclaim the pages no process maps any more. Code that runs afterwards is
// faulted back in, as at start (the mappings are private and read-only:
// nothing is lost).
package resident

import (
	"context"
	"time"
)

// ReleaseAfter waits until the process has run for d more (its start-up
// long over, its command not a short one), then calls Release; it returns
// at once, without releasing, when ctx ends first. Run it in a goroutine.
func ReleaseAfter(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		_, _ = Release()
	case <-ctx.Done():
	}
}
