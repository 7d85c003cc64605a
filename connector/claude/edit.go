package claude

import (
	"bytes"
	"encoding/json"
	"strings"
)

// doc is a JSON text being edited in place.
type doc struct {
	file string
	src  []byte
	unit string // one level of indentation, as the file uses it
	// oneLine is set for a file written on a single line: it stays so.
	oneLine bool
}

func newDoc(file string, src []byte) (*doc, *node, error) {
	root, err := parseSpans(file, src)
	if err != nil {
		return nil, nil, err
	}
	d := &doc{file: file, src: src, unit: "  ", oneLine: !bytes.Contains(bytes.TrimSpace(src), []byte("\n"))}
	if root.kind == '{' && len(root.members) > 0 {
		sep := string(src[root.start+1 : root.members[0].keyStart])
		if i := strings.LastIndexByte(sep, '\n'); i >= 0 && i+1 < len(sep) {
			d.unit = sep[i+1:]
		}
	}
	return d, root, nil
}

// reparse parses the edited text again.
func (d *doc) reparse() (*node, error) { return parseSpans(d.file, d.src) }

func (d *doc) replace(start, end int, text string) {
	d.src = append(d.src[:start:start], append([]byte(text), d.src[end:]...)...)
}

// lineIndent is the whitespace that starts the line holding off.
func (d *doc) lineIndent(off int) string {
	ls := bytes.LastIndexByte(d.src[:off], '\n') + 1
	i := ls
	for i < off && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	return string(d.src[ls:i])
}

// render marshals v for a position at indent, or on one line.
func (d *doc) render(v any, indent string, compact bool) string {
	var b []byte
	var err error
	if compact {
		b, err = json.Marshal(v)
	} else {
		b, err = json.MarshalIndent(v, indent, d.unit)
	}
	if err != nil {
		return "null"
	}
	return string(b)
}

// insert appends an item to container c. key is the member name for an
// object ("" for an array). For a container that was empty it returns
// the whitespace it had inside, which remove needs to undo exactly.
func (d *doc) insert(c *node, key string, v any) (emptyWS *string) {
	items := c.items()
	prefix := ""
	if c.kind == '{' {
		prefix = mustJSON(key) + ": "
	}
	if len(items) == 0 {
		inner := string(d.src[c.start+1 : c.end-1])
		if d.oneLine && !bytes.Equal(bytes.TrimSpace(d.src), []byte("{}")) {
			d.replace(c.start+1, c.end-1, prefix+d.render(v, "", true))
			return &inner
		}
		own := d.lineIndent(c.start)
		text := "\n" + own + d.unit + prefix + d.render(v, own+d.unit, false) + "\n" + own
		d.replace(c.start+1, c.end-1, text)
		return &inner
	}
	sep := string(d.src[c.start+1 : items[0][0]])
	nl := strings.LastIndexByte(sep, '\n')
	compact := nl < 0
	indent := ""
	if !compact {
		indent = sep[nl+1:]
	}
	last := items[len(items)-1][1]
	d.replace(last, last, ","+sep+prefix+d.render(v, indent, compact))
	return nil
}

// remove deletes item i of container c, with the separator that insert
// added before it; emptyWS restores the inside of a container that
// insert found empty.
func (d *doc) remove(c *node, i int, emptyWS *string) {
	items := c.items()
	switch {
	case len(items) == 1:
		inner := ""
		if emptyWS != nil {
			inner = *emptyWS
		}
		d.replace(c.start+1, c.end-1, inner)
	case i > 0:
		d.replace(items[i-1][1], items[i][1], "")
	default:
		d.replace(items[0][0], items[1][0], "")
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
