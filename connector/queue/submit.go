package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Submit queues req and returns the id to wait for. It first fills in
// what the writer may leave empty (ID, Version, Created, Hash) and
// validates the request. If the same request (same Hash and Session) is
// still pending or claimed, or finished within the join window with a
// human's decision, Submit joins it: it returns that request's id and
// joined=true and writes nothing. Otherwise the request is written to
// tmp/, fsynced and renamed into pending/ID.json. ErrQueueFull when the
// folder already holds the maximum number of pending requests.
//
// Submit registers this process as a waiter for the id; a later Wait on
// this Queue uses that registration to decide whether cancelling may
// withdraw the request (see Wait).
func (q *Queue) Submit(ctx context.Context, req *Request) (id string, joined bool, err error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	data, err := q.prepare(req)
	if err != nil {
		return "", false, err
	}
	tmp, err := q.stage(req.ID, data)
	if err != nil {
		return "", false, err
	}
	defer func() {
		if err != nil || joined {
			os.Remove(tmp)
		}
	}()
	unlock, err := q.lockBus(ctx)
	if err != nil {
		return "", false, err
	}
	defer unlock()
	key := joinKey(req.Hash, req.Session)
	if id := q.findJoin(key, req.Hash, req.Session); id != "" {
		return id, true, q.addWaiter(id, true)
	}
	if err := q.checkRoom(); err != nil {
		return "", false, err
	}
	if q.used(req.ID) {
		return "", false, invalid("id", "%s is already in use", req.ID)
	}
	if err := os.Rename(tmp, q.path(StatePending, req.ID)); err != nil {
		return "", false, fmt.Errorf("submit %s: %w", req.ID, err)
	}
	q.addJoin(key, req.ID)
	return req.ID, false, q.addWaiter(req.ID, false)
}

// prepare fills in the writer's fields, validates, and encodes.
func (q *Queue) prepare(req *Request) ([]byte, error) {
	if req.ID == "" {
		req.ID = NewID()
	}
	if req.Version == 0 {
		req.Version = Version
	}
	if req.Created.IsZero() {
		req.Created = q.now().UTC()
	}
	if h := req.ComputeHash(); req.Hash == "" {
		req.Hash = h
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	data, err := encode(req)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, invalid("request", "%d bytes encoded, more than %d", len(data), MaxFileSize)
	}
	return data, nil
}

// encode writes JSON without HTML escaping, so strings round-trip exactly.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return b.Bytes(), nil
}

// stage writes data to tmp/ID.json (created exclusively, never through a
// link) and fsyncs it.
func (q *Queue) stage(id string, data []byte) (path string, err error) {
	path = filepath.Join(q.tmp, id+".json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o644)
	if err != nil {
		return "", fmt.Errorf("stage request: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(path)
		}
	}()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("stage request: %w", err)
	}
	return path, nil
}

// checkRoom enforces the pending limit, expiring old requests first when
// the limit is reached. Called with the bus lock held.
func (q *Queue) checkRoom() error {
	n, err := q.countPending()
	if err != nil || n < q.maxPending {
		return err
	}
	q.expireLocked()
	if n, err = q.countPending(); err != nil || n < q.maxPending {
		return err
	}
	return fmt.Errorf("%d requests pending (limit %d): %w", n, q.maxPending, ErrQueueFull)
}

// countPending counts the entries of pending/, reading no more names than
// the limit needs.
func (q *Queue) countPending() (int, error) {
	d, err := os.Open(q.pending)
	if err != nil {
		return 0, fmt.Errorf("count pending: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(q.maxPending)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("count pending: %w", err)
	}
	return len(names), nil
}

// used reports whether id already names a request or result: rename would
// replace it. Called with the bus lock held.
func (q *Queue) used(id string) bool {
	for _, s := range []State{StatePending, StateClaimed, StateDone} {
		if _, err := os.Lstat(q.path(s, id)); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}
