package audit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strconv"
	"time"
)

// body is a record's canonical form: members in this order, no hmac.
// json.Marshal of it (with Detail already encoded with sorted keys) is the
// record's canonical bytes.
type body struct {
	Seq         uint64          `json:"seq"`
	Time        string          `json:"time"`
	Actor       string          `json:"actor"`
	Event       string          `json:"event"`
	RequestID   string          `json:"request_id"`
	Decision    string          `json:"decision"`
	ContentHash string          `json:"content_hash"`
	Detail      json.RawMessage `json:"detail,omitempty"`
	Prev        string          `json:"prev"`
}

// The fixed tail of every line: `,"prev":"<64 hex>"` closes the canonical
// bytes, then `,"hmac":"<64 hex>"}` replaces their closing brace.
const (
	prevPrefix = `,"prev":"`
	hmacPrefix = `,"hmac":"`
	hmacSuffix = `"}`
	hexLen     = 2 * sha256.Size
	hmacTail   = len(hmacPrefix) + hexLen + len(hmacSuffix)
	prevTail   = len(prevPrefix) + hexLen + 1
	seqPrefix  = `{"seq":`
)

var closeBrace = []byte{'}'}

// signer computes chain hashes and HMACs of canonical bytes. It reuses its
// hashes, so it is not safe for concurrent use.
type signer struct {
	mac hash.Hash
	sha hash.Hash
	out []byte // reused for Sum, so that hashing does not allocate
}

func newSigner(key []byte) *signer {
	return &signer{mac: hmac.New(sha256.New, key), sha: sha256.New(), out: make([]byte, 0, 2*sha256.Size)}
}

// sums returns the chain hash and the HMAC of the canonical bytes
// prefix + "}", where prefix is a line up to its hmac member.
func (s *signer) sums(prefix []byte) (sum, mac [sha256.Size]byte) {
	s.sha.Reset()
	s.sha.Write(prefix)
	s.sha.Write(closeBrace)
	s.out = s.sha.Sum(s.out[:0])
	s.mac.Reset()
	s.mac.Write(prefix)
	s.mac.Write(closeBrace)
	s.out = s.mac.Sum(s.out)
	copy(sum[:], s.out)
	copy(mac[:], s.out[sha256.Size:])
	return sum, mac
}

// encode builds the line (with its newline) of entry e at seq, chained to
// prev, and returns it with the record's chain hash.
func (s *signer) encode(seq uint64, t time.Time, e Entry, detail json.RawMessage, prev [sha256.Size]byte) ([]byte, [sha256.Size]byte, error) {
	c, err := json.Marshal(body{
		Seq: seq, Time: t.UTC().Format(time.RFC3339Nano),
		Actor: e.Actor, Event: e.Event, RequestID: e.RequestID,
		Decision: e.Decision, ContentHash: e.ContentHash,
		Detail: detail, Prev: hex.EncodeToString(prev[:]),
	})
	if err != nil {
		return nil, [sha256.Size]byte{}, fmt.Errorf("%w: %w", ErrInvalidEntry, err)
	}
	prefix := c[:len(c)-1]
	sum, mac := s.sums(prefix)
	line := make([]byte, 0, len(prefix)+hmacTail+1)
	line = append(line, prefix...)
	line = append(line, hmacPrefix...)
	line = hex.AppendEncode(line, mac[:])
	line = append(line, hmacSuffix...)
	line = append(line, '\n')
	if len(line) > MaxLine {
		return nil, sum, fmt.Errorf("%w: record of %d bytes exceeds %d", ErrInvalidEntry, len(line), MaxLine)
	}
	return line, sum, nil
}

// parsed is the structural view of one line: enough to check its HMAC and
// its place in the chain without decoding the JSON.
type parsed struct {
	seq    uint64
	prev   [sha256.Size]byte
	mac    [sha256.Size]byte
	prefix []byte // the line up to its hmac member; + "}" = canonical bytes
}

// parseLine reads the fixed frame of a line (without its newline): it
// starts with {"seq":N, and ends with ,"prev":"HEX","hmac":"HEX"}. Anything
// else is not a record. The middle is authenticated by the HMAC, not parsed.
func parseLine(b []byte) (p parsed, ok bool) {
	if len(b) < len(seqPrefix)+2+prevTail+hmacTail || string(b[:len(seqPrefix)]) != seqPrefix {
		return p, false
	}
	n := len(b)
	if string(b[n-len(hmacSuffix):]) != hmacSuffix || string(b[n-hmacTail:n-hmacTail+len(hmacPrefix)]) != hmacPrefix {
		return p, false
	}
	if !decodeHex(p.mac[:], b[n-hexLen-len(hmacSuffix):n-len(hmacSuffix)]) {
		return p, false
	}
	p.prefix = b[:n-hmacTail]
	m := len(p.prefix)
	if p.prefix[m-1] != '"' || string(p.prefix[m-prevTail:m-prevTail+len(prevPrefix)]) != prevPrefix {
		return p, false
	}
	if !decodeHex(p.prev[:], p.prefix[m-1-hexLen:m-1]) {
		return p, false
	}
	p.seq, ok = parseSeq(b[len(seqPrefix) : m-prevTail])
	return p, ok
}

// parseSeq reads the decimal number that starts b and is followed by a
// comma. No sign, no leading zero, at least 1.
func parseSeq(b []byte) (uint64, bool) {
	i := 0
	for i < len(b) && i < 21 && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(b) || b[i] != ',' || b[0] == '0' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:i]), 10, 64)
	return v, err == nil
}

// decodeHex decodes lowercase hex src into dst (len(src) == 2*len(dst)).
func decodeHex(dst, src []byte) bool {
	bad := byte(0)
	for i := range dst {
		hi, lo := hexTable[src[2*i]], hexTable[src[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0x0f
	}
	return bad&0x80 == 0
}

// hexTable maps a lowercase hex digit to its value and anything else to
// 0xff, so that decodeHex needs no branch per byte.
var hexTable = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
	}
	return t
}()
