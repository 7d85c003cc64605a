package audit

import "encoding/hex"

// chain places an authentic record in the sequence.
func (s *scanner) chain(li *lineInfo, p parsed, sum [32]byte) {
	s.rep.Records++
	resync := s.resync
	s.resync = false
	switch next := s.last.seq + 1; {
	case p.seq < next:
		s.rep.add(s.at(li, p.seq, KindReordered, "seq %d comes after seq %d (moved or duplicated)", p.seq, s.last.seq))
		s.fillGap(p.seq)
		s.checkAnchor(li, p.seq, sum)
		return // the chain goes on from the highest seq
	case p.seq > next:
		s.missing(li, p.seq, next)
	case !s.started && p.prev != [32]byte{}:
		s.rep.add(s.at(li, p.seq, KindBroken, "the first record's prev is not all zeros"))
	case s.started && p.prev != s.last.hash && !resync:
		s.rep.add(s.at(li, p.seq, KindBroken, "prev does not match the hash of seq %d: the records before this one were rewritten", s.last.seq))
	}
	s.started = true
	s.last = link{seq: p.seq, hash: sum}
	s.lastAt, s.good = s.at(li, p.seq, "", ""), s.last
	s.checkAnchor(li, p.seq, sum)
}

// missing reports the records from..seq-1 that are not where they belong.
func (s *scanner) missing(li *lineInfo, seq, from uint64) {
	k, why := KindDeleted, "removed from the log"
	switch {
	case !s.started:
		why = "the log does not start at seq 1 (deleted, or an earlier file removed)"
	case s.firstOfFile:
		k, why = KindMissing, "the previous file ends early or a file between is missing"
	}
	idx := s.rep.add(s.at(li, seq, k, "%s missing before this one: %s", seqRange(from, seq-1), why))
	s.gaps = append(s.gaps, gap{from: from, to: seq - 1, idx: idx})
}

// fillGap turns an earlier gap into a reorder when its records show up late.
func (s *scanner) fillGap(seq uint64) {
	for _, g := range s.gaps {
		if g.idx >= 0 && seq >= g.from && seq <= g.to {
			pr := &s.rep.Problems[g.idx]
			pr.Kind = KindReordered
			pr.Message = seqRange(g.from, g.to) + " out of order: found after this one"
		}
	}
}

// checkAnchor compares the record at the anchored seq with the anchor.
func (s *scanner) checkAnchor(li *lineInfo, seq uint64, sum [32]byte) {
	if s.anchor == nil || s.anchorSeen || seq != s.anchor.seq {
		return
	}
	s.anchorSeen = true
	if sum != s.anchor.hash {
		s.rep.add(s.at(li, seq, KindRewritten,
			"this record is not the anchored head (hash %.12s…, anchored %.12s…): the log was rewritten",
			hex.EncodeToString(sum[:]), hex.EncodeToString(s.anchor.hash[:])))
	}
}

// forged reports a record whose HMAC fails. A run of them is one problem;
// the chain goes on from it without checking the next record's prev.
func (s *scanner) forged(li *lineInfo, p parsed, sum [32]byte) {
	if s.forgedRun.open {
		s.forgedRun.count++
		s.forgedRun.to = p.seq
	} else {
		idx := s.rep.add(s.at(li, p.seq, KindEdited,
			"HMAC does not match: the record was changed, or not written with this user's key"))
		s.forgedRun = forgedRun{open: true, idx: idx, from: p.seq, to: p.seq, count: 1}
	}
	if p.seq > s.last.seq {
		s.last = link{seq: p.seq, hash: sum}
	}
	s.started, s.resync = true, true
}

// closeForgedRun ends a run of forged records at an authentic one.
func (s *scanner) closeForgedRun() {
	r := s.forgedRun
	s.forgedRun.open = false
	if !r.open || r.count < 2 || r.idx < 0 {
		return
	}
	s.rep.Problems[r.idx].Message = fmtRun(r) + " fail their HMAC: edited, or forged without this user's key"
}

// finish runs the checks that need the whole log and settles the report.
func (s *scanner) finish(anchorUsable bool) {
	if s.torn != nil { // a complete line that is not a record, nothing after it
		s.rep.add(s.torn.p)
		s.torn = nil
	}
	if r := s.forgedRun; r.open && r.count >= 2 && r.idx >= 0 {
		pr := &s.rep.Problems[r.idx]
		pr.Kind = KindRewritten
		pr.Message = fmtRun(r) + " to the end fail their HMAC: the log was rewritten, or written with another user's key"
	}
	s.checkHead(anchorUsable)
	if s.good.seq > 0 {
		s.rep.Head = s.good.head()
	}
	s.rep.finish()
}

// checkHead compares where the log ends with the anchored head.
func (s *scanner) checkHead(anchorUsable bool) {
	a := s.anchor
	switch {
	case a == nil && s.started && anchorUsable:
		s.rep.add(Problem{Kind: KindAnchor, Message: "no anchored head for this folder in the per-user state: " +
			"truncation and rewriting cannot be ruled out (state lost, or another user's log?)"})
	case a == nil:
	case !s.started:
		s.rep.add(Problem{File: s.fileOr(), Kind: KindMissing,
			Message: "no audit records, but the anchored head is seq " + utoa(a.seq) + ": the log file was deleted or emptied"})
	case s.last.seq < a.seq:
		s.rep.add(Problem{File: s.lastAt.File, Line: s.lastAt.Line, Seq: s.last.seq, Kind: KindTruncated,
			Message: "the log ends at seq " + utoa(s.last.seq) + " but the anchored head is seq " + utoa(a.seq) +
				": the tail was cut off"})
	}
}
