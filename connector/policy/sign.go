package policy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// mac signs the fields of a record with the per-user key. The fields are
// joined with NUL bytes after a domain string, so a signature made for
// one kind of record never verifies as another.
func mac(key []byte, domain string, fields ...string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(domain))
	for _, f := range fields {
		h.Write([]byte{0})
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// verifyMAC compares in constant time.
func verifyMAC(key []byte, sig, domain string, fields ...string) bool {
	if len(key) == 0 || sig == "" {
		return false
	}
	want := mac(key, domain, fields...)
	return hmac.Equal([]byte(strings.ToLower(sig)), []byte(want))
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
