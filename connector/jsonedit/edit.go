package jsonedit

import (
	"fmt"
	"slices"
	"strings"
)

// Site is one insertion: a member named Member added to the object at
// Path, or (Member empty) an element added to the array at Path.
// EmptyWS is what the container held inside when it was empty, which an
// undo puts back.
type Site struct {
	Path    []string `json:"path"`
	Member  string   `json:"member,omitempty"`
	EmptyWS *string  `json:"empty_ws,omitempty"`
}

// Where an element goes in its array.
type Where int

const (
	// Last appends the element.
	Last Where = iota
	// First puts the element before the others.
	First
)

// AddMember adds member key with value v to the object at path, which
// must exist. The key must not be there yet (ErrConflict).
func (d *Doc) AddMember(path []string, key string, v any) (Site, error) {
	obj, err := d.container(path, Object)
	if err != nil {
		return Site{}, err
	}
	if m, _ := obj.Get(key); m != nil {
		return Site{}, fmt.Errorf("%s: %q already has %q: %w", d.file, strings.Join(path, "."), key, ErrConflict)
	}
	ws, err := d.insert(obj, quote(key)+": ", v, Last)
	if err != nil {
		return Site{}, err
	}
	return Site{Path: slices.Clone(path), Member: key, EmptyWS: ws}, nil
}

// EnsureMember makes sure the object at path has member key, adding
// empty (for example map[string]any{} or []any{}) when it is missing.
// It returns the site when it added one. An existing member of another
// kind than empty's is ErrMalformed.
func (d *Doc) EnsureMember(path []string, key string, kind Kind) (*Site, error) {
	full := append(slices.Clone(path), key)
	n, err := d.Lookup(full)
	if err != nil {
		return nil, err
	}
	if n != nil {
		if n.Kind != kind {
			return nil, d.malformedAt(n.Start, fmt.Sprintf("%q is not %s", strings.Join(full, "."), kind))
		}
		return nil, nil
	}
	var empty any = map[string]any{}
	if kind == Array {
		empty = []any{}
	}
	s, err := d.AddMember(path, key, empty)
	return &s, err
}

// AddElement puts v into the array at path, first or last.
func (d *Doc) AddElement(path []string, v any, where Where) (Site, error) {
	arr, err := d.container(path, Array)
	if err != nil {
		return Site{}, err
	}
	ws, err := d.insert(arr, "", v, where)
	if err != nil {
		return Site{}, err
	}
	return Site{Path: slices.Clone(path), EmptyWS: ws}, nil
}

// insert puts an item (prefix, then v) into container c. For a container
// that was empty it returns the whitespace it had inside.
func (d *Doc) insert(c *Node, prefix string, v any, where Where) (*string, error) {
	items := c.items()
	if len(items) == 0 {
		return d.insertEmpty(c, prefix, v)
	}
	sep := string(d.src[c.Start+1 : items[0][0]])
	nl := strings.LastIndexByte(sep, '\n')
	indent := ""
	if nl >= 0 {
		indent = sep[nl+1:]
	}
	text, err := d.render(v, indent, nl < 0)
	if err != nil {
		return nil, err
	}
	if where == First {
		d.replace(items[0][0], items[0][0], prefix+text+","+sep)
		return nil, nil
	}
	last := items[len(items)-1][1]
	d.replace(last, last, ","+sep+prefix+text)
	return nil, nil
}

func (d *Doc) insertEmpty(c *Node, prefix string, v any) (*string, error) {
	inner := string(d.src[c.Start+1 : c.End-1])
	if d.oneLine {
		text, err := d.render(v, "", true)
		if err != nil {
			return nil, err
		}
		d.replace(c.Start+1, c.End-1, prefix+text)
		return &inner, nil
	}
	own := d.lineIndent(c.Start)
	text, err := d.render(v, own+d.unit, false)
	if err != nil {
		return nil, err
	}
	d.replace(c.Start+1, c.End-1, "\n"+own+d.unit+prefix+text+"\n"+own)
	return &inner, nil
}

// removeItem deletes item i of container c with the separator an insert
// added with it; emptyWS restores the inside of a container that an
// insert found empty.
func (d *Doc) removeItem(c *Node, i int, emptyWS *string) {
	items := c.items()
	switch {
	case len(items) == 1:
		inner := ""
		if emptyWS != nil {
			inner = *emptyWS
		}
		d.replace(c.Start+1, c.End-1, inner)
	case i > 0:
		d.replace(items[i-1][1], items[i][1], "")
	default:
		d.replace(items[0][0], items[1][0], "")
	}
}

// RemoveItem deletes member or element i of container c, which must have
// come from a Lookup (or Root) of d's current text.
func (d *Doc) RemoveItem(c *Node, i int) error {
	if (c.Kind != Object && c.Kind != Array) || i < 0 || i >= c.Len() {
		return fmt.Errorf("bug: item %d of a %s", i, c.Kind)
	}
	d.removeItem(c, i, nil)
	return nil
}
