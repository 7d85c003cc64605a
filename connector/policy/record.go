package policy

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

// decodeRecord decodes an accepted-policy record. The record is a flat
// JSON object of four strings, which decodeFlatRecord reads without
// encoding/json (whose first use costs a hook about 50 us); anything it
// does not recognise exactly (escapes, other keys, a repeated key) goes to
// encoding/json, so both always agree (FuzzDecodeRecord).
func decodeRecord(js []byte) (acceptedRecord, error) {
	if rec, ok := decodeFlatRecord(js); ok {
		return rec, nil
	}
	var rec acceptedRecord
	err := json.Unmarshal(js, &rec)
	return rec, err
}

// decodeFlatRecord reads {"root": "...", "sha256": "...", "accepted_at":
// "...", "mac": "..."} in any order, with JSON white space, where no value
// holds a backslash or a control character.
func decodeFlatRecord(js []byte) (rec acceptedRecord, ok bool) {
	s := flatScanner{b: js}
	if !s.punct('{') {
		return rec, false
	}
	seen := map[string]bool{}
	for first := true; ; first = false {
		if s.punct('}') {
			return rec, s.end() && len(seen) > 0
		}
		if !first && !s.punct(',') {
			return rec, false
		}
		key, ok1 := s.str()
		val, ok2 := "", s.punct(':')
		if ok2 {
			val, ok2 = s.str()
		}
		if !ok1 || !ok2 || seen[key] || !rec.set(key, val) {
			return rec, false
		}
		seen[key] = true
	}
}

// set stores one field; false for a key encoding/json would not store
// the same way.
func (r *acceptedRecord) set(key, val string) bool {
	switch key {
	case "root":
		r.Root = val
	case "sha256":
		r.SHA256 = val
	case "mac":
		r.MAC = val
	case "accepted_at":
		t, err := time.Parse(time.RFC3339Nano, val)
		if err != nil || t.Format(time.RFC3339Nano) != val {
			return false // not as encoding/json writes it: let it decide
		}
		r.AcceptedAt = t
	default:
		return false
	}
	return true
}

// flatScanner reads JSON punctuation and plain strings.
type flatScanner struct {
	b []byte
	i int
}

func (s *flatScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *flatScanner) punct(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *flatScanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

// str reads a string with no escapes and no control characters.
func (s *flatScanner) str() (string, bool) {
	if !s.punct('"') {
		return "", false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			return string(v), utf8.Valid(v)
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}
