package audit

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Memory is an in-memory Appender for other packages' tests. It keeps the
// records in order and, after FailWith, fails every Append the way a full
// or read-only audit dir does (the error wraps ErrAppend).
type Memory struct {
	mu sync.Mutex
	// guarded by mu:
	records []Record
	err     error
}

var _ Appender = (*Memory)(nil)

// Append validates e like Log.Append and keeps it.
func (m *Memory) Append(e Entry) (Record, error) {
	if err := validate(e); err != nil {
		return Record{}, err
	}
	detail, err := encodeDetail(e.Detail)
	if err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return Record{}, fmt.Errorf("%w: %w", ErrAppend, m.err)
	}
	r := Record{
		Seq: uint64(len(m.records)) + 1, Time: time.Now().UTC(), Actor: e.Actor, Event: e.Event,
		RequestID: e.RequestID, Decision: e.Decision, ContentHash: e.ContentHash,
		Detail: json.RawMessage(detail), Authentic: true,
	}
	m.records = append(m.records, r)
	return r, nil
}

// FailWith makes every later Append fail with err (nil: succeed again).
func (m *Memory) FailWith(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = err
}

// Records returns a copy of the records appended so far.
func (m *Memory) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Record(nil), m.records...)
}
