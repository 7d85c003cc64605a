package audit

import (
	"fmt"
	"strconv"
)

// Kind classifies a problem Verify found.
type Kind string

// Problem kinds. All but KindTorn are failures; KindTorn (a crash during
// an append) is only a warning.
const (
	KindEdited    Kind = "edited"       // a record fails its HMAC
	KindDeleted   Kind = "deleted"      // records missing in the sequence
	KindReordered Kind = "reordered"    // records out of sequence order
	KindTruncated Kind = "truncated"    // the log ends before the anchored head
	KindRewritten Kind = "rewritten"    // the log is another chain than the anchored one
	KindMissing   Kind = "file missing" // the log, or a file of it, is gone
	KindBroken    Kind = "broken chain" // a record's prev is not its predecessor's hash
	KindMalformed Kind = "malformed"    // a line that is not a record
	KindAnchor    Kind = "anchor"       // the anchored head is missing or corrupt
	KindTorn      Kind = "torn"         // a torn line from a crash (warning)
)

// Problem is one finding, located by file (relative to the project root),
// 1-based line and, when known, the record's seq.
type Problem struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
	}
	if p.Seq > 0 {
		loc += fmt.Sprintf(" (seq %d)", p.Seq)
	}
	if loc == "" {
		return fmt.Sprintf("%s: %s", p.Kind, p.Message)
	}
	return fmt.Sprintf("%s: %s: %s", loc, p.Kind, p.Message)
}

// MaxProblems bounds Report.Problems; the rest are only counted.
const MaxProblems = 100

// Report is what Verify found. OK means no problems; warnings (torn lines
// from crashes) do not make a log bad.
type Report struct {
	Files    []string  `json:"files"`   // the *.jsonl files read, in order
	Records  int       `json:"records"` // authentic records
	Head     Head      `json:"head"`    // the last authentic record in chain order
	Anchor   *Head     `json:"anchor,omitempty"`
	OK       bool      `json:"ok"`
	FirstBad *Problem  `json:"first_bad,omitempty"`
	Problems []Problem `json:"problems,omitempty"` // in log order, at most MaxProblems
	Dropped  int       `json:"dropped,omitempty"`  // problems beyond MaxProblems
	Warnings []Problem `json:"warnings,omitempty"`
	TornTail bool      `json:"torn_tail,omitempty"` // the log ends in a torn line
}

func (r *Report) add(p Problem) int {
	if len(r.Problems) >= MaxProblems {
		r.Dropped++
		return -1
	}
	r.Problems = append(r.Problems, p)
	return len(r.Problems) - 1
}

func (r *Report) finish() {
	r.OK = len(r.Problems) == 0 && r.Dropped == 0
	if !r.OK {
		r.FirstBad = &r.Problems[0]
	}
}

func utoa(v uint64) string { return strconv.FormatUint(v, 10) }

func fmtRun(r forgedRun) string {
	return fmt.Sprintf("%d records (seq %d..%d)", r.count, r.from, r.to)
}

// seqRange names a run of sequence numbers.
func seqRange(from, to uint64) string {
	if from == to {
		return "record " + utoa(from)
	}
	return fmt.Sprintf("records %d..%d", from, to)
}
