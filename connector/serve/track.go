package serve

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// maxDoneViews bounds the cache of finished requests' views.
const maxDoneViews = 2000

// tracker knows what is on one folder's bus as last seen and turns every
// change into events: requests appearing (pending), claimed and done.
// It rescans only when the notifier marked it stale.
type tracker struct {
	fs    *folderState
	stale atomic.Bool

	mu sync.Mutex
	// Guarded by mu: the pending cache, the ids in claimed/ and done/,
	// and the encoded views of finished requests.
	pending *pendingCache
	claimed map[string]bool
	done    map[string]bool
	doneJS  map[string]json.RawMessage
	primed  bool
}

func newTracker(fs *folderState) *tracker {
	t := &tracker{fs: fs, pending: newPendingCache(fs), claimed: map[string]bool{}, done: map[string]bool{},
		doneJS: map[string]json.RawMessage{}}
	t.stale.Store(true)
	return t
}

// refresh rescans the bus if it is stale and returns what changed and
// the requests that appeared. The first scan only learns what is there.
func (t *tracker) refresh() ([]Event, []*entry) {
	if !t.stale.Swap(false) {
		return nil, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var evs []Event
	added, _, bad := t.pending.scan()
	if bad {
		_, problems := t.fs.q.Pending() // quarantines the bad files
		for _, p := range t.fs.report(problems) {
			evs = append(evs, Event{Type: EventProblem, Folder: t.fs.key, Problem: p})
		}
		added2, _, _ := t.pending.scan()
		added = append(added, added2...)
	}
	for _, e := range added {
		evs = append(evs, Event{Type: EventPending, Folder: t.fs.key, ID: e.req.ID, Request: e.view})
	}
	evs = append(evs, t.scanClaimed()...)
	evs = append(evs, t.scanDone()...)
	if !t.primed {
		t.primed = true
		return nil, added
	}
	return evs, added
}

func (t *tracker) scanClaimed() []Event {
	names, err := readDir(t.fs.f.Claimed())
	if err != nil {
		return nil
	}
	now := map[string]bool{}
	var evs []Event
	for _, name := range names {
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !queue.ValidID(id) {
			continue
		}
		now[id] = true
		if !t.claimed[id] {
			evs = append(evs, Event{Type: EventClaimed, Folder: t.fs.key, ID: id})
		}
	}
	t.claimed = now
	return evs
}

func (t *tracker) scanDone() []Event {
	names, err := readDir(t.fs.f.Done())
	if err != nil {
		return nil
	}
	var evs []Event
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !queue.ValidID(id) {
			continue
		}
		seen[id] = true
		if t.done[id] || !t.primed {
			continue
		}
		if res, err := t.fs.q.Result(id); err == nil {
			v := t.fs.tagView(viewDone(t.fs.key, res))
			evs = append(evs, Event{Type: EventDone, Folder: t.fs.key, ID: id, Request: v, Result: v.Result})
		}
	}
	t.done = seen
	return evs
}

// snapshot returns the pending entries and the claimed ids.
func (t *tracker) snapshot() ([]*entry, []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	claimed := make([]string, 0, len(t.claimed))
	for id := range t.claimed {
		claimed = append(claimed, id)
	}
	slices.Sort(claimed)
	return t.pending.list(), claimed
}

// doneIDs returns up to limit finished ids, newest first.
func (t *tracker) doneIDs(limit int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]string, 0, len(t.done))
	for id := range t.done {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids[:min(limit, len(ids))]
}

// doneView returns the encoded view of a finished request, cached.
func (t *tracker) doneView(id string) (json.RawMessage, bool) {
	t.mu.Lock()
	js, ok := t.doneJS[id]
	t.mu.Unlock()
	if ok {
		return js, true
	}
	res, err := t.fs.q.Result(id)
	if err != nil {
		return nil, false
	}
	js, err = json.Marshal(t.fs.tagView(viewDone(t.fs.key, res)))
	if err != nil {
		return nil, false
	}
	t.mu.Lock()
	if len(t.doneJS) >= maxDoneViews {
		clear(t.doneJS)
	}
	t.doneJS[id] = js
	t.mu.Unlock()
	return js, true
}

func sortEntries(es []*entry) {
	slices.SortFunc(es, func(a, b *entry) int { return strings.Compare(a.req.ID, b.req.ID) })
}

func sortStrings(s []string) { slices.Sort(s) }
