// Package audit is the tamper-evident audit log of a project folder: JSON
// lines in the folder's per-user state (Dir), each record chained to the one before by
// SHA-256 and signed with the per-user HMAC key, the head anchored in the
// per-user state directory, appends serialised across processes with a
// file lock. Verify names the first bad record and tells a torn last line
// (a crash) from tampering. docs/AUDIT.md describes the format.
package audit

import (
	"encoding/json"
	"time"
)

// LiveFile is the file appends go to. Rotated files are named
// audit.NNNNNN.jsonl so that they sort before it; Verify and Read walk
// every *.jsonl file in name order.
const LiveFile = "audit.jsonl"

// Limits on one record.
const (
	MaxDetail = 8 << 10  // encoded detail larger than this is replaced by a digest
	MaxLine   = 64 << 10 // longer lines are never records
)

// Entry is what an actor asks to record. Actor and Event are required.
type Entry struct {
	Actor       string         // "hook:claude", "approver:watch", "broker", "cli", "shim", ...
	Event       string         // "request.created", "exec.start", "exec.end", ...
	RequestID   string         // queue id, when the event is about a request
	Decision    string         // "allow", "escalate", "deny", "approved", ...
	ContentHash string         // the request's content hash
	Detail      map[string]any // small extra facts; keys are sorted on encoding
}

// Record is one line of the log as written. Its JSON encoding is the line
// itself (see docs/AUDIT.md); Authentic is set by Read when a key was given
// and the record's HMAC checks out.
type Record struct {
	Seq         uint64          `json:"seq"`
	Time        time.Time       `json:"time"`
	Actor       string          `json:"actor"`
	Event       string          `json:"event"`
	RequestID   string          `json:"request_id"`
	Decision    string          `json:"decision"`
	ContentHash string          `json:"content_hash"`
	Detail      json.RawMessage `json:"detail,omitempty"`
	Prev        string          `json:"prev"`
	HMAC        string          `json:"hmac"`
	Authentic   bool            `json:"-"`
	// Line is the record exactly as the log holds it (without its
	// newline): a copy kept elsewhere (team mode's audit stream) is
	// verified from these bytes (VerifyChain). Set by Read and Follow.
	Line []byte `json:"-"`
}

// Head names a record of the chain: its sequence number and the hex
// SHA-256 of its canonical bytes.
type Head struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// Appender is what actors need from the log; *Log implements it, Memory
// fakes it for tests. An error from Append means: refuse the action.
type Appender interface {
	Append(e Entry) (Record, error)
}

var _ Appender = (*Log)(nil)

// TornEvent is the event of the record an appender writes after finding a
// torn last line (a crash during an append): its detail names the torn
// line's offset, size and SHA-256.
const TornEvent = "audit.torn"
