package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Doc is a JSON text being edited in place.
type Doc struct {
	file string
	src  []byte
	unit string // one level of indentation, as the file uses it
	// oneLine is set for a file written on a single line: it stays so.
	oneLine bool
}

// Parse reads src (named file in messages). The top level must be an
// object.
func Parse(file string, src []byte) (*Doc, error) {
	root, err := parse(file, src)
	if err != nil {
		return nil, err
	}
	if root.Kind != Object {
		return nil, malformed(file, src, root.Start, "the top level is not an object")
	}
	d := &Doc{file: file, src: bytes.Clone(src), unit: "  "}
	trimmed := bytes.TrimSpace(src)
	d.oneLine = !bytes.Contains(trimmed, []byte("\n")) && !bytes.Equal(trimmed, []byte("{}"))
	if len(root.Members) > 0 {
		sep := string(src[root.Start+1 : root.Members[0].KeyStart])
		if i := strings.LastIndexByte(sep, '\n'); i >= 0 && i+1 < len(sep) {
			d.unit = sep[i+1:]
		}
	}
	return d, nil
}

// Bytes is the document's current text.
func (d *Doc) Bytes() []byte { return d.src }

// File is the name the document was parsed under.
func (d *Doc) File() string { return d.file }

// Root parses the current text again and returns its top-level object.
func (d *Doc) Root() (*Node, error) { return parse(d.file, d.src) }

// Lookup walks path from the root through object members, each of which
// must occur once. It returns nil when a member is missing, and
// ErrMalformed when a step is not an object.
func (d *Doc) Lookup(path []string) (*Node, error) {
	n, err := d.Root()
	if err != nil {
		return nil, err
	}
	for i, key := range path {
		if n.Kind != Object {
			return nil, d.malformedAt(n.Start, fmt.Sprintf("%q is not an object", strings.Join(path[:i], ".")))
		}
		v, dup := n.Get(key)
		if dup {
			return nil, d.malformedAt(n.Start, fmt.Sprintf("duplicate key %q", key))
		}
		if v == nil {
			return nil, nil
		}
		n = v
	}
	return n, nil
}

func (d *Doc) malformedAt(off int, msg string) error { return malformed(d.file, d.src, off, msg) }

// container looks up path and checks that it is a container of kind k.
func (d *Doc) container(path []string, k Kind) (*Node, error) {
	n, err := d.Lookup(path)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return nil, d.malformedAt(0, fmt.Sprintf("%q is missing", strings.Join(path, ".")))
	}
	if n.Kind != k {
		return nil, d.malformedAt(n.Start, fmt.Sprintf("%q is not %s", strings.Join(path, "."), k))
	}
	return n, nil
}

func (d *Doc) replace(start, end int, text string) {
	d.src = append(d.src[:start:start], append([]byte(text), d.src[end:]...)...)
}

// lineIndent is the whitespace that starts the line holding off.
func (d *Doc) lineIndent(off int) string {
	ls := bytes.LastIndexByte(d.src[:off], '\n') + 1
	i := ls
	for i < off && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	return string(d.src[ls:i])
}

// render marshals v, indented for a position at indent, or on one line.
func (d *Doc) render(v any, indent string, compact bool) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !compact {
		enc.SetIndent(indent, d.unit)
	}
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("%s: encoding: %w", d.file, err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
