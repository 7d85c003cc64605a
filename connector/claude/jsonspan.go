package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// node is a JSON value with its byte span in the source, so that edits
// touch only the bytes they must and leave the user's formatting alone.
type node struct {
	kind       byte // '{', '[', '"' or 'v' (number, true, false, null)
	start, end int  // [start, end) of the value's text
	members    []member
	elems      []*node
	str        string // the decoded string, kind '"'
}

type member struct {
	key      string
	keyStart int
	val      *node
}

// spanParser parses JSON that encoding/json has already validated.
type spanParser struct {
	src []byte
	pos int
}

// parseSpans validates src and returns its top-level value with spans. A
// syntax error is reported as "file:line: message".
func parseSpans(file string, src []byte) (*node, error) {
	var v any
	if err := json.Unmarshal(src, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, malformed(file, src, int(se.Offset), se.Error())
		}
		return nil, malformed(file, src, 0, err.Error())
	}
	p := &spanParser{src: src}
	return p.value(), nil
}

// malformed is ErrMalformed at the line holding byte offset off.
func malformed(file string, src []byte, off int, msg string) error {
	off = min(max(off, 0), len(src))
	line := 1 + strings.Count(string(src[:off]), "\n")
	return fmt.Errorf("%s:%d: %s: %w", file, line, msg, ErrMalformed)
}

func (p *spanParser) ws() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *spanParser) value() *node {
	p.ws()
	n := &node{start: p.pos}
	switch p.src[p.pos] {
	case '{':
		n.kind = '{'
		p.object(n)
	case '[':
		n.kind = '['
		p.array(n)
	case '"':
		n.kind = '"'
		n.str = p.str()
	default:
		n.kind = 'v'
		for p.pos < len(p.src) && strings.IndexByte(",]} \t\r\n", p.src[p.pos]) < 0 {
			p.pos++
		}
	}
	n.end = p.pos
	return n
}

func (p *spanParser) object(n *node) {
	p.pos++ // {
	for {
		p.ws()
		if p.src[p.pos] == '}' {
			p.pos++
			return
		}
		if p.src[p.pos] == ',' {
			p.pos++
			p.ws()
		}
		m := member{keyStart: p.pos}
		m.key = p.str()
		p.ws()
		p.pos++ // :
		m.val = p.value()
		n.members = append(n.members, m)
	}
}

func (p *spanParser) array(n *node) {
	p.pos++ // [
	for {
		p.ws()
		if p.src[p.pos] == ']' {
			p.pos++
			return
		}
		if p.src[p.pos] == ',' {
			p.pos++
		}
		n.elems = append(n.elems, p.value())
	}
}

// str consumes a string literal and returns its decoded value.
func (p *spanParser) str() string {
	start := p.pos
	p.pos++
	for p.src[p.pos] != '"' {
		if p.src[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	p.pos++
	var s string
	json.Unmarshal(p.src[start:p.pos], &s)
	return s
}

// get returns the member named key, and whether the key occurs more than
// once (which the caller must refuse: which one would the agent read?).
func (n *node) get(key string) (m *member, dup bool) {
	for i := range n.members {
		if n.members[i].key == key {
			if m != nil {
				return m, true
			}
			m = &n.members[i]
		}
	}
	return m, false
}

// items returns the spans of a container's items: members (from the key)
// or elements.
func (n *node) items() [][2]int {
	var out [][2]int
	for _, m := range n.members {
		out = append(out, [2]int{m.keyStart, m.val.end})
	}
	for _, e := range n.elems {
		out = append(out, [2]int{e.start, e.end})
	}
	return out
}
