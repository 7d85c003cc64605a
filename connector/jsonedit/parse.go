// Package jsonedit edits agents' JSON configuration files in place. It
// adds object members and array elements where they are missing and
// takes exactly those out again, touching only the bytes it must: the
// user's formatting, key order and unrelated content stay as they were,
// so that installing and then uninstalling gives back the same bytes.
// Every insertion is recorded as a Site that an uninstall replays.
package jsonedit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Kind is the type of a JSON value.
type Kind byte

// Value kinds.
const (
	Object Kind = '{'
	Array  Kind = '['
	String Kind = '"'
	Scalar Kind = 'v' // number, true, false or null
)

func (k Kind) String() string {
	switch k {
	case Object:
		return "an object"
	case Array:
		return "an array"
	case String:
		return "a string"
	}
	return "a scalar"
}

// Node is a parsed value with its byte span in the document.
type Node struct {
	Kind       Kind
	Start, End int // [Start, End) of the value's text
	Members    []Member
	Elems      []*Node
	Str        string // the decoded string, Kind String
	src        []byte // the text the node was parsed from
	root       *Node  // the document's top-level value
}

// Root is the top-level value of the document the node was parsed from,
// for matchers that must look beyond the node.
func (n *Node) Root() *Node { return n.root }

// Text is the node's JSON text.
func (n *Node) Text() string { return string(n.src[n.Start:n.End]) }

// Decode unmarshals the node's JSON text into v.
func (n *Node) Decode(v any) error { return json.Unmarshal(n.src[n.Start:n.End], v) }

// Member is one member of an object.
type Member struct {
	Key      string
	KeyStart int
	Val      *Node
}

// Get returns the value of member key, and whether the key occurs more
// than once (which callers refuse: which one would the agent read?).
func (n *Node) Get(key string) (v *Node, dup bool) {
	for i := range n.Members {
		if n.Members[i].Key != key {
			continue
		}
		if v != nil {
			return v, true
		}
		v = n.Members[i].Val
	}
	return v, false
}

// items returns the spans of a container's items: members (from the key)
// or elements.
func (n *Node) items() [][2]int {
	var out [][2]int
	for _, m := range n.Members {
		out = append(out, [2]int{m.KeyStart, m.Val.End})
	}
	for _, e := range n.Elems {
		out = append(out, [2]int{e.Start, e.End})
	}
	return out
}

// Len is the number of members or elements of a container.
func (n *Node) Len() int { return len(n.Members) + len(n.Elems) }

// parse validates src and returns its top-level value with spans. A
// syntax error is ErrMalformed at "file:line".
func parse(file string, src []byte) (*Node, error) {
	var v any
	if err := json.Unmarshal(src, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, malformed(file, src, int(se.Offset), se.Error()+" (comments are not supported)")
		}
		return nil, malformed(file, src, 0, err.Error())
	}
	p := &spanParser{src: src}
	root := p.value()
	for _, n := range p.nodes {
		n.root = root
	}
	return root, nil
}

// malformed is ErrMalformed at the line holding byte offset off.
func malformed(file string, src []byte, off int, msg string) error {
	off = min(max(off, 0), len(src))
	line := 1 + strings.Count(string(src[:off]), "\n")
	return fmt.Errorf("%s:%d: %s: %w", file, line, msg, ErrMalformed)
}

// spanParser walks JSON that encoding/json has already validated.
type spanParser struct {
	src   []byte
	pos   int
	nodes []*Node // every node made, to point them at the root
}

func (p *spanParser) ws() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *spanParser) value() *Node {
	p.ws()
	n := &Node{Start: p.pos, src: p.src}
	p.nodes = append(p.nodes, n)
	switch p.src[p.pos] {
	case '{':
		n.Kind = Object
		p.object(n)
	case '[':
		n.Kind = Array
		p.array(n)
	case '"':
		n.Kind = String
		n.Str = p.str()
	default:
		n.Kind = Scalar
		for p.pos < len(p.src) && strings.IndexByte(",]} \t\r\n", p.src[p.pos]) < 0 {
			p.pos++
		}
	}
	n.End = p.pos
	return n
}

func (p *spanParser) object(n *Node) {
	p.pos++ // {
	for {
		p.ws()
		switch p.src[p.pos] {
		case '}':
			p.pos++
			return
		case ',':
			p.pos++
			p.ws()
		}
		m := Member{KeyStart: p.pos}
		m.Key = p.str()
		p.ws()
		p.pos++ // :
		m.Val = p.value()
		n.Members = append(n.Members, m)
	}
}

func (p *spanParser) array(n *Node) {
	p.pos++ // [
	for {
		p.ws()
		switch p.src[p.pos] {
		case ']':
			p.pos++
			return
		case ',':
			p.pos++
		}
		n.Elems = append(n.Elems, p.value())
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
