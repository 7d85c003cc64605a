package audit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// scanner walks the lines of the log in order and checks each record's
// HMAC and its place in the chain, keeping only O(1) state per record.
type scanner struct {
	sig    *signer
	rep    *Report
	anchor *point

	file        string  // current file, relative
	firstOfFile bool    // the current line is the file's first
	started     bool    // a record was seen
	last        link    // the highest-seq record seen so far
	lastAt      Problem // where the last authentic in-order record is
	good        link    // that record
	anchorSeen  bool    // the record at the anchored seq was checked
	resync      bool    // the next record's prev is not checked (after a forged one)
	gaps        []gap   // sequence gaps, upgraded to reorders when filled later
	torn        *tornLine
	forgedRun   forgedRun
	chainOnly   bool // no key: the HMACs are not checked (VerifyChain)
}

type gap struct {
	from, to uint64
	idx      int // index in rep.Problems, or -1
}

// tornLine is a line that is not a record, waiting to see whether the next
// record is the audit.torn record that explains it.
type tornLine struct {
	p    Problem
	off  int64
	size int64
	sum  [sha256.Size]byte
}

// forgedRun is a run of records failing their HMAC with no authentic
// record after them yet.
type forgedRun struct {
	open     bool
	idx      int
	from, to uint64
	count    int
}

func newScanner(key []byte, anchor *point) *scanner {
	s := &scanner{sig: newSigner(key), rep: &Report{}, anchor: anchor}
	if anchor != nil {
		h := anchor.head()
		s.rep.Anchor = &h
	}
	return s
}

func (s *scanner) at(li *lineInfo, seq uint64, k Kind, format string, args ...any) Problem {
	return Problem{File: s.file, Line: li.no, Seq: seq, Kind: k, Message: fmt.Sprintf(format, args...)}
}

// line checks one line; final is a last line without newline.
func (s *scanner) line(li *lineInfo, final bool) {
	var p parsed
	ok := !li.long
	if ok {
		p, ok = parseLine(li.b)
	}
	if !ok {
		s.notRecord(li, final)
		return
	}
	sum, mac := s.sig.sums(p.prefix)
	authentic := s.chainOnly || hmac.Equal(mac[:], p.mac[:])
	if s.torn != nil {
		s.explainTorn(p, authentic)
	}
	if !authentic {
		s.forged(li, p, sum)
		return
	}
	s.closeForgedRun()
	s.chain(li, p, sum)
	if final {
		s.rep.Warnings = append(s.rep.Warnings, s.at(li, p.seq, KindTorn,
			"the last record lacks its newline (a crash during an append); the record itself is intact"))
	}
}

// notRecord handles a line that is not a record: a torn tail, or a line
// that only the next record can explain.
func (s *scanner) notRecord(li *lineInfo, final bool) {
	if s.torn != nil {
		s.rep.add(s.torn.p)
	}
	pr := s.at(li, 0, KindMalformed, "line is not an audit record (%d bytes)", li.size)
	if final {
		s.torn = nil
		s.tornTail(pr, li.size)
		return
	}
	s.torn = &tornLine{p: pr, off: li.off, size: li.size, sum: li.digest()}
}

func (s *scanner) tornTail(p Problem, size int64) {
	s.rep.TornTail = true
	p.Kind = KindTorn
	p.Message = fmt.Sprintf("torn last line (%d bytes): a crash during an append, not tampering", size)
	s.rep.Warnings = append(s.rep.Warnings, p)
}

// explainTorn accepts the pending non-record line as a crash only when the
// record after it is an authentic audit.torn record naming its offset,
// size and SHA-256; otherwise the line is malformed (inserted or damaged).
func (s *scanner) explainTorn(p parsed, authentic bool) {
	t := s.torn
	s.torn = nil
	var r struct {
		Event  string `json:"event"`
		Detail struct {
			Bytes  int64  `json:"bytes"`
			File   string `json:"file"`
			Offset int64  `json:"offset"`
			SHA256 string `json:"sha256"`
		} `json:"detail"`
	}
	if authentic && json.Unmarshal(append(p.prefix[:len(p.prefix):len(p.prefix)], '}'), &r) == nil &&
		r.Event == TornEvent && r.Detail.Bytes == t.size && r.Detail.Offset == t.off &&
		r.Detail.SHA256 == hex.EncodeToString(t.sum[:]) && r.Detail.File == filepath.Base(t.p.File) {
		t.p.Kind = KindTorn
		t.p.Message = fmt.Sprintf("torn line (%d bytes) from a crash during an append, recorded by seq %d; not tampering", t.size, p.seq)
		s.rep.Warnings = append(s.rep.Warnings, t.p)
		return
	}
	s.rep.add(t.p)
}

// fileOr is the current file, or the live file's relative name.
func (s *scanner) fileOr() string {
	if s.file != "" {
		return s.file
	}
	return LiveFile
}
