package queue

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// idAlphabet is Crockford's base32 in lower case: sortable, no i, l, o, u.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// MaxIDLen is the longest id a file may carry.
const MaxIDLen = 64

// NewID returns a fresh request id: 26 characters of lower-case base32
// encoding a 48-bit millisecond timestamp followed by 80 random bits, so
// ids sort by creation time and never collide in practice.
func NewID() string { return newIDAt(time.Now()) }

func newIDAt(t time.Time) string {
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], uint64(t.UnixMilli())<<16)
	rand.Read(raw[6:]) // never fails (crypto/rand panics rather than return short)
	hi := binary.BigEndian.Uint64(raw[:8])
	lo := binary.BigEndian.Uint64(raw[8:])
	var out [26]byte
	// 128 bits = 2 leading bits + 25 groups of 5 bits.
	for i := 25; i >= 0; i-- {
		out[i] = idAlphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// ValidID reports whether id matches ^[a-z0-9-]{1,64}$, the only ids the
// queue accepts in files and file names.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
