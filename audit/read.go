package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Read calls fn for every record with Seq > after, in log order (every
// *.jsonl file in name order), as the log is now. Lines that are not
// records are skipped: Verify, not Read, judges the log. Each record's
// Authentic says whether its HMAC checks out with st's key.
func Read(ctx context.Context, f folder.Folder, st *userstate.State, after uint64, fn func(Record) error) error {
	t, err := newTailer(f, st, after)
	if err != nil {
		return err
	}
	return t.poll(ctx, fn)
}

// Follow is Read, then waits for new records until ctx ends (returning
// ctx.Err()) or fn fails. It wakes on fsnotify events in the audit dir
// and, as a fallback where notification is unavailable, polls.
func Follow(ctx context.Context, f folder.Folder, st *userstate.State, after uint64, fn func(Record) error) error {
	t, err := newTailer(f, st, after)
	if err != nil {
		return err
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	every := 250 * time.Millisecond
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		if w.Add(t.dir) == nil {
			events, errs, every = w.Events, w.Errors, 2*time.Second
		}
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if err := t.poll(ctx, fn); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-events:
		case <-errs: // an overflow: the next poll reads whatever was missed
		case <-tick.C:
		}
	}
}

// tailer remembers how far each file has been read.
type tailer struct {
	dir     string
	sig     *signer
	after   uint64
	offsets map[string]int64
}

func newTailer(f folder.Folder, st *userstate.State, after uint64) (*tailer, error) {
	dir, err := Dir(f, st)
	if err != nil {
		return nil, err
	}
	return &tailer{dir: dir, after: after, offsets: map[string]int64{}, sig: newSigner(st.Key)}, nil
}

// poll reads the complete lines added to every file since the last poll.
func (t *tailer) poll(ctx context.Context, fn func(Record) error) error {
	files, err := listFiles(t.dir)
	if err != nil {
		return err
	}
	for _, lf := range files {
		if lf.size < 0 {
			continue
		}
		if err := t.readFile(ctx, lf.name, fn); err != nil {
			return err
		}
	}
	return nil
}

func (t *tailer) readFile(ctx context.Context, name string, fn func(Record) error) error {
	fh, err := openRegular(filepath.Join(t.dir, name), os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	off := t.offsets[name]
	if fi.Size() < off {
		off = 0 // the file shrank: it was rewritten; read it again
	}
	lr := newLineReader(io.NewSectionReader(fh, off, fi.Size()-off), off, fi.Size()-off, 1)
	for {
		li, err := lr.next()
		if errors.Is(err, io.EOF) || (err == nil && !li.newline) {
			break // a line still being written waits for the next poll
		}
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		off = li.off + li.size + 1
		if err := t.emit(ctx, &li, fn); err != nil {
			t.offsets[name] = off
			return err
		}
	}
	t.offsets[name] = off
	return nil
}

func (t *tailer) emit(ctx context.Context, li *lineInfo, fn func(Record) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rec, ok := t.decode(li)
	if !ok || rec.Seq <= t.after {
		return nil
	}
	return fn(rec)
}

// decode turns a line into a Record when it has a record's frame and
// decodes as one.
func (t *tailer) decode(li *lineInfo) (Record, bool) {
	if li.long {
		return Record{}, false
	}
	p, ok := parseLine(li.b)
	if !ok {
		return Record{}, false
	}
	var rec Record
	if err := json.Unmarshal(li.b, &rec); err != nil || rec.Seq != p.seq {
		return Record{}, false
	}
	if t.sig != nil {
		_, mac := t.sig.sums(p.prefix)
		rec.Authentic = mac == p.mac
	}
	rec.Line = append([]byte(nil), li.b...)
	return rec, true
}

// Reader reads a log's records incrementally: each Poll reads only what
// was appended since the last (team mode's relay publishes them so).
type Reader struct{ t *tailer }

// NewReader starts after record seq after.
func NewReader(f folder.Folder, st *userstate.State, after uint64) (*Reader, error) {
	t, err := newTailer(f, st, after)
	if err != nil {
		return nil, err
	}
	return &Reader{t: t}, nil
}

// Poll calls fn for each record appended since the last Poll, in order.
// A record fn failed on is not read again: make a new Reader from the
// last record handled.
func (r *Reader) Poll(ctx context.Context, fn func(Record) error) error { return r.t.poll(ctx, fn) }
