package queue

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"strconv"
)

// hashDomain starts every canonical encoding, so a request hash can never
// equal the hash of some other kind of record.
const hashDomain = "sandbox-request-content/v1"

// ComputeHash returns the SHA-256 (lower-case hex) of the request's
// canonical content encoding: what it asks (kind, payload) and where (cwd),
// but not who asks, why, or when. The encoding is a sequence of items, each
// an 8-byte big-endian length followed by that many bytes: the domain
// string, then name/value pairs in a fixed order (see docs/QUEUE.md). Lists
// are a name, a decimal count, then the elements; an optional value is
// preceded by "1" when present and "0" when absent. Only the payload that
// matches Kind is encoded.
func (r *Request) ComputeHash() string {
	h := canonical{sha256.New()}
	h.item(hashDomain)
	h.pair("kind", string(r.Kind))
	h.pair("cwd", r.Cwd)
	switch r.Kind {
	case KindShell:
		h.shell(r.Shell)
	case KindWrite:
		h.write(r.Write)
	case KindRead:
		if r.Read != nil {
			h.pair("path", r.Read.Path)
		}
	case KindNetwork:
		if n := r.Network; n != nil {
			h.pair("url", n.URL)
			h.pair("host", n.Host)
			h.pair("port", strconv.Itoa(n.Port))
		}
	case KindMCP:
		if m := r.MCP; m != nil {
			h.pair("tool", m.Tool)
			h.pair("arguments", string(m.Arguments))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

type canonical struct{ hash.Hash }

func (c canonical) item(s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	c.Write(n[:])
	c.Write([]byte(s))
}

func (c canonical) pair(name, value string) {
	c.item(name)
	c.item(value)
}

func (c canonical) list(name string, values []string) {
	c.pair(name, strconv.Itoa(len(values)))
	for _, v := range values {
		c.item(v)
	}
}

func (c canonical) optional(name string, present bool, value string) {
	c.item(name)
	if !present {
		c.item("0")
		return
	}
	c.item("1")
	c.item(value)
}

func (c canonical) shell(p *ShellPayload) {
	if p == nil {
		return
	}
	c.pair("shell", p.Shell)
	c.pair("script", p.Script)
	c.list("argv", p.Argv)
	c.optional("stdin", len(p.Stdin) > 0, string(p.Stdin)) // JSON omits an empty stdin
}

func (c canonical) write(p *WritePayload) {
	if p == nil {
		return
	}
	c.pair("path", p.Path)
	c.optional("content", p.Content != nil, deref(p.Content))
	c.pair("edits", strconv.Itoa(len(p.Edits)))
	for _, e := range p.Edits {
		c.item(e.OldString)
		c.item(e.NewString)
		c.item(strconv.FormatBool(e.ReplaceAll))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
