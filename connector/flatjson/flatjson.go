// Package flatjson reads the common shape of the small JSON documents a
// short process decodes (a hook event, its tool input, a signed record)
// without reflection: encoding/json's first use of each type costs such a
// process about 50 us. Object takes only what it decodes exactly as
// encoding/json would, and reports false for anything else (a \u escape,
// bytes that are not UTF-8, a repeated or case-insensitively matching key,
// a value of the wrong kind, invalid JSON anywhere): the caller then uses
// encoding/json, so the two never disagree. Each caller keeps a fuzz
// target that checks this for its type.
package flatjson

import (
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting of raw values Object scans.
const maxDepth = 64

// Value is one member's value.
type Value struct {
	Kind byte   // '"' string, 't'/'f' bool, 'n' null, '0' number, '{' or '[' nested
	Str  string // the decoded string
	Raw  []byte // the value's bytes as they appear in the input
}

// Field stores a member's value; false when encoding/json would not
// store it the same way (Object then gives up).
type Field func(v Value) bool

// Object decodes data, which must be one JSON object, into fields (keyed
// by their exact JSON names); members with other names are checked and
// skipped. False: decode data with encoding/json instead.
func Object(data []byte, fields map[string]Field) bool {
	s := &scanner{b: data}
	if !s.punct('{') {
		return false
	}
	seen := make(map[string]bool, len(fields))
	for first := true; ; first = false {
		if s.punct('}') {
			s.space()
			return s.i == len(s.b)
		}
		if !first && !s.punct(',') {
			return false
		}
		s.space()
		key, ok := s.str()
		if !ok || !s.punct(':') {
			return false
		}
		v, ok := s.value(0)
		if !ok || !member(fields, seen, key, v) {
			return false
		}
	}
}

// member stores one member, or skips an unknown one.
func member(fields map[string]Field, seen map[string]bool, key string, v Value) bool {
	set, known := fields[key]
	if !known {
		for name := range fields {
			if strings.EqualFold(name, key) {
				return false // encoding/json matches names without case
			}
		}
		return true
	}
	if seen[key] {
		return false
	}
	seen[key] = true
	return set(v)
}

// String stores a string; null leaves it as it is.
func String(dst *string) Field {
	return func(v Value) bool {
		switch v.Kind {
		case '"':
			*dst = v.Str
		case 'n':
		default:
			return false
		}
		return true
	}
}

// StringPtr stores a string through a new pointer; null leaves it.
func StringPtr(dst **string) Field {
	return func(v Value) bool {
		switch v.Kind {
		case '"':
			s := v.Str
			*dst = &s
		case 'n':
		default:
			return false
		}
		return true
	}
}

// Bool stores true or false; null leaves it.
func Bool(dst *bool) Field {
	return func(v Value) bool {
		switch v.Kind {
		case 't', 'f':
			*dst = v.Kind == 't'
		case 'n':
		default:
			return false
		}
		return true
	}
}

// Raw keeps the value's bytes (json.RawMessage, null included).
func Raw(dst *[]byte) Field {
	return func(v Value) bool {
		*dst = append([]byte(nil), v.Raw...)
		return true
	}
}

// scanner reads JSON from b.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) punct(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// value reads one value after optional white space.
func (s *scanner) value(depth int) (Value, bool) {
	s.space()
	if s.i == len(s.b) || depth > maxDepth {
		return Value{}, false
	}
	start, c := s.i, s.b[s.i]
	v, ok := Value{Kind: c}, false
	switch {
	case c == '"':
		v.Str, ok = s.str()
	case c == '{' || c == '[':
		ok = s.nested(depth)
	case c == 't':
		ok = s.literal("true")
	case c == 'f':
		ok = s.literal("false")
	case c == 'n':
		ok = s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		v.Kind, ok = '0', s.number()
	}
	v.Raw = s.b[start:s.i]
	return v, ok
}

func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// nested reads an object or an array, checking it.
func (s *scanner) nested(depth int) bool {
	open := s.b[s.i]
	end := byte('}')
	if open == '[' {
		end = ']'
	}
	s.i++
	if s.punct(end) {
		return true
	}
	for {
		if open == '{' {
			s.space()
			if _, ok := s.str(); !ok || !s.punct(':') {
				return false
			}
		}
		if _, ok := s.value(depth + 1); !ok {
			return false
		}
		if s.punct(end) {
			return true
		}
		if !s.punct(',') {
			return false
		}
	}
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case !s.digits():
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		return s.digits()
	}
	return true
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// str reads a string at s.i ('"'): its escapes other than \u, and UTF-8
// text without control characters.
func (s *scanner) str() (string, bool) {
	if s.i == len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	s.i++
	start := s.i
	var out []byte // only when there are escapes
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			seg := s.b[start:s.i]
			s.i++
			if !utf8.Valid(seg) {
				return "", false // encoding/json would replace the bad bytes
			}
			if out == nil {
				return string(seg), true
			}
			return string(append(out, seg...)), true
		case c < 0x20:
			return "", false
		case c == '\\':
			r, ok := unescape(s.b, s.i)
			if !ok || !utf8.Valid(s.b[start:s.i]) {
				return "", false
			}
			out = append(append(out, s.b[start:s.i]...), r)
			s.i += 2
			start = s.i
		default:
			s.i++
		}
	}
	return "", false
}

// unescape returns the byte a two-character escape at b[i] stands for.
func unescape(b []byte, i int) (byte, bool) {
	if i+1 >= len(b) {
		return 0, false
	}
	switch b[i+1] {
	case '"', '\\', '/':
		return b[i+1], true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false // \u and anything invalid: encoding/json decides
}
