package serve

import (
	"cmp"
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// recoverEvery is the slow tick at which folders are looked at even
// without a notification (expiry, approvers that died, an accepted
// policy changed from elsewhere), as `sandbox watch` does.
const recoverEvery = 10 * time.Second

// Kinds of change a folder's worker reacts to.
const (
	changeQueue = 1 << iota
	changeResults
	changePolicy
)

// signals is a folder's coalescing change flags.
type signals struct {
	ch chan int
}

func (sg signals) send(kind int) {
	for {
		select {
		case sg.ch <- kind:
			return
		default:
		}
		select {
		case old := <-sg.ch:
			kind |= old
		default:
		}
	}
}

// target is what a watched directory's events mean.
type target struct {
	fs   *folderState
	kind int
}

// watch starts one file notifier for every folder's bus directories, a
// worker per folder and an audit follower per folder. Where notification
// is unavailable, the workers poll.
func (s *Server) watch(ctx context.Context, folders []*folderState) {
	targets := map[string]target{}
	for _, fs := range folders {
		fs.sig = signals{ch: make(chan int, 1)}
		for dir, kind := range map[string]int{fs.f.Pending(): changeQueue, fs.f.Claimed(): changeQueue,
			fs.f.Done(): changeQueue, fs.f.Results(): changeResults, fs.f.Dir(): changePolicy} {
			targets[dir] = target{fs, kind}
		}
	}
	poll := time.Duration(0)
	if w, err := notifier(targets); err != nil {
		s.log.Warn("file notification unavailable; polling", "err", err)
		poll = cmp.Or(s.cfg.Poll, time.Second)
	} else {
		s.wg.Add(1)
		go s.dispatch(ctx, w, targets)
	}
	for _, fs := range folders {
		fs.primeAll()
		s.wg.Add(2)
		go fs.work(ctx, poll)
		go fs.followAudit(ctx)
	}
}

// notifier watches every target directory.
func notifier(targets map[string]target) (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	for dir := range targets {
		if err := w.Add(dir); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// route signals the folder a file event is about.
func route(targets map[string]target, name string) {
	t, ok := targets[filepath.Dir(name)]
	switch {
	case !ok:
		return
	case t.kind == changePolicy && filepath.Base(name) != "policy.yaml":
		return
	case t.kind == changeQueue:
		t.fs.track.stale.Store(true) // a listing now rescans
	}
	t.fs.sig.send(t.kind)
}

// dispatch turns file events into folder signals; a watcher error (an
// overflow loses events) signals every folder to look again.
func (s *Server) dispatch(ctx context.Context, w *fsnotify.Watcher, targets map[string]target) {
	defer s.wg.Done()
	defer w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			route(targets, ev.Name)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.log.Warn("file notification error", "err", err)
			for _, t := range targets {
				t.fs.sig.send(changeQueue | changeResults | changePolicy)
			}
		}
	}
}

// refresh rescans the bus if it is stale, lets remembered decisions
// settle the new requests and publishes the changes: arrivals and claims,
// then the output of the requests that finished, then their results.
func (fs *folderState) refresh() {
	// One refresh publishes at a time, so that a folder's events reach
	// the clients in the order they were seen.
	fs.pub.Lock()
	defer fs.pub.Unlock()
	evs, added := fs.track.refresh()
	fs.autoDecide(added)
	fs.notify()
	_, claimed := fs.track.snapshot()
	output := fs.out.sync(claimed)
	var done []Event
	for _, ev := range evs {
		if ev.Type == EventDone {
			done = append(done, ev)
		} else {
			fs.s.hub.publish(ev)
		}
	}
	fs.s.hub.publish(output...)
	fs.s.hub.publish(done...)
}

// drainOutput publishes the output written since the last look.
func (fs *folderState) drainOutput() {
	fs.pub.Lock()
	defer fs.pub.Unlock()
	fs.s.hub.publish(fs.out.drain()...)
}

// primeAll learns what is on the bus now, before any client connects.
func (fs *folderState) primeAll() {
	fs.q.Recover()
	fs.refresh()
	fs.policyChanged()
}

// work reacts to the folder's changes until ctx ends.
func (fs *folderState) work(ctx context.Context, poll time.Duration) {
	defer fs.s.wg.Done()
	defer fs.out.close()
	slow := time.NewTicker(recoverEvery)
	defer slow.Stop()
	var tick <-chan time.Time
	if poll > 0 {
		t := time.NewTicker(poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		kind := 0
		select {
		case <-ctx.Done():
			return
		case kind = <-fs.sig.ch:
		case <-tick:
			kind = changeQueue | changeResults | changePolicy
		case <-slow.C:
			fs.q.Recover()
			kind = changeQueue | changePolicy
		}
		fs.changed(kind)
	}
}

// changed publishes what a change brought.
func (fs *folderState) changed(kind int) {
	if kind&changeQueue != 0 {
		fs.track.stale.Store(true)
		fs.refresh()
	}
	if kind&(changeQueue|changeResults) != 0 {
		fs.drainOutput()
		fs.moved.notify()
	}
	if kind&changePolicy != 0 {
		if v := fs.policyChanged(); v != nil {
			fs.s.hub.publish(Event{Type: EventPolicy, Folder: fs.key, Policy: v})
		}
	}
}
