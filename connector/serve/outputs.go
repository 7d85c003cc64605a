package serve

import "sync"

// maxLiveOutput bounds the escaped output of one request sent as events;
// the rest is in the log (GET /api/requests/{id}/output streams it all).
const maxLiveOutput = 1 << 20

// outputs follows the logs of a folder's claimed requests and publishes
// their output as events, whichever approver runs them.
type outputs struct {
	fs *folderState

	mu sync.Mutex
	// tails is guarded by mu: one per claimed request.
	tails map[string]*liveTail
}

type liveTail struct {
	t    *logTail
	sent int
}

func newOutputs(fs *folderState) *outputs {
	return &outputs{fs: fs, tails: map[string]*liveTail{}}
}

// sync follows the claimed ids and finishes the ones that left claimed/.
func (o *outputs) sync(claimed []string) []Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := make(map[string]bool, len(claimed))
	for _, id := range claimed {
		now[id] = true
		if o.tails[id] == nil {
			o.tails[id] = &liveTail{t: newLogTail(o.fs.f, id)}
		}
	}
	var evs []Event
	for id, lt := range o.tails {
		if now[id] {
			continue
		}
		res, _ := o.fs.q.Result(id)
		lt.t.finish(res, o.emitter(id, lt, &evs))
		delete(o.tails, id)
	}
	return evs
}

// drain returns the output written since the last drain.
func (o *outputs) drain() []Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	var evs []Event
	for id, lt := range o.tails {
		lt.t.drain(o.emitter(id, lt, &evs))
	}
	return evs
}

func (o *outputs) emitter(id string, lt *liveTail, evs *[]Event) emitFunc {
	return func(stream, text string) {
		if lt.sent >= maxLiveOutput {
			return
		}
		lt.sent += len(text)
		if lt.sent >= maxLiveOutput {
			text += "\n[live output stops here; the full output is in the result log]\n"
		}
		*evs = append(*evs, Event{Type: EventOutput, Folder: o.fs.key, ID: id, Stream: stream, Text: text})
	}
}

func (o *outputs) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for id, lt := range o.tails {
		lt.t.close()
		delete(o.tails, id)
	}
}
