package serve

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/display"
)

// RecordView is one audit record as the API shows it, every text escaped
// (a line that is not authentic may hold anything). Detail is the
// record's detail JSON on one escaped line.
type RecordView struct {
	Folder      string    `json:"folder"`
	Seq         uint64    `json:"seq"`
	Time        time.Time `json:"time"`
	Actor       string    `json:"actor"`
	Event       string    `json:"event"`
	RequestID   string    `json:"request_id,omitempty"`
	Decision    string    `json:"decision,omitempty"`
	ContentHash string    `json:"content_hash,omitempty"`
	Detail      string    `json:"detail,omitempty"`
	Details     []Detail  `json:"details,omitempty"`
	Authentic   bool      `json:"authentic"`
}

// Detail is one field of a record's detail, for people: the dashboard
// shows these as "key value" lines instead of the raw JSON. Both are
// escaped; a nested value is its compact JSON.
type Detail struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// details splits a record's detail object into its fields, sorted by
// key; nil when it is not a JSON object.
func details(raw []byte) []Detail {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	keys := slices.Sorted(maps.Keys(m))
	out := make([]Detail, 0, len(keys))
	for _, k := range keys {
		v := string(m[k])
		var str string
		if json.Unmarshal(m[k], &str) == nil {
			v = str
		}
		out = append(out, Detail{Key: display.EscapeLine(k), Value: display.EscapeLine(v)})
	}
	return out
}

func viewRecord(key string, r audit.Record) *RecordView {
	return &RecordView{
		Folder: key, Seq: r.Seq, Time: r.Time, Actor: display.EscapeLine(r.Actor),
		Event: display.EscapeLine(r.Event), RequestID: display.EscapeLine(r.RequestID),
		Decision: display.EscapeLine(r.Decision), ContentHash: display.EscapeLine(r.ContentHash),
		Detail: display.EscapeLine(string(r.Detail)), Details: details(r.Detail), Authentic: r.Authentic,
	}
}

// followAudit publishes every record appended to the folder's log from
// now on. It restarts after an error, a little later.
func (fs *folderState) followAudit(ctx context.Context) {
	defer fs.s.wg.Done()
	last := fs.auditHead(ctx)
	for ctx.Err() == nil {
		err := audit.Follow(ctx, fs.f, fs.s.cfg.State, last, func(r audit.Record) error {
			last = max(last, r.Seq)
			fs.s.hub.publish(Event{Type: EventAudit, Folder: fs.key, Record: viewRecord(fs.key, r)})
			return nil
		})
		if err == nil || errors.Is(err, context.Canceled) {
			return
		}
		fs.s.log.Warn("following the audit log", "folder", fs.f.Root, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(recoverEvery):
		}
	}
}

// auditHead is the sequence number of the log's last record now.
func (fs *folderState) auditHead(ctx context.Context) uint64 {
	var last uint64
	err := audit.Read(ctx, fs.f, fs.s.cfg.State, 0, func(r audit.Record) error {
		last = max(last, r.Seq)
		return nil
	})
	if err != nil {
		fs.s.log.Debug("reading the audit log", "folder", fs.f.Root, "err", err)
	}
	return last
}

// records returns the newest limit records with Seq > after, oldest
// first.
func (fs *folderState) records(ctx context.Context, after uint64, limit int) ([]*RecordView, error) {
	ring := make([]*RecordView, 0, limit)
	err := audit.Read(ctx, fs.f, fs.s.cfg.State, after, func(r audit.Record) error {
		if len(ring) == limit {
			copy(ring, ring[1:])
			ring = ring[:limit-1]
		}
		ring = append(ring, viewRecord(fs.key, r))
		return nil
	})
	return ring, err
}

// VerifyView is what `sandbox audit verify` says about a folder's log.
type VerifyView struct {
	Folder   string `json:"folder"`
	OK       bool   `json:"ok"`
	Records  int    `json:"records"`
	HeadSeq  uint64 `json:"head_seq"`
	FirstBad string `json:"first_bad,omitempty"`
	Problems int    `json:"problems"`
	Warnings int    `json:"warnings"`
	TornTail bool   `json:"torn_tail,omitempty"`
	Error    string `json:"error,omitempty"`
}

func (fs *folderState) verify() *VerifyView {
	v := &VerifyView{Folder: fs.key}
	rep, err := audit.Verify(fs.f, fs.s.cfg.State)
	if err != nil {
		v.Error = display.EscapeLine(err.Error())
		return v
	}
	v.OK, v.Records, v.HeadSeq, v.TornTail = rep.OK, rep.Records, rep.Head.Seq, rep.TornTail
	v.Problems, v.Warnings = len(rep.Problems)+rep.Dropped, len(rep.Warnings)
	if rep.FirstBad != nil {
		v.FirstBad = display.EscapeLine(rep.FirstBad.String())
	}
	return v
}
