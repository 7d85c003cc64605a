package store

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
	return macWith(key, domain, fields, nil)
}

// macWith is mac over fields followed by one more field given as bytes
// (a signed file's payload, which is not copied into a string).
func macWith(key []byte, domain string, fields []string, last []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(domain))
	for _, f := range fields {
		h.Write([]byte{0})
		h.Write([]byte(f))
	}
	if last != nil {
		h.Write([]byte{0})
		h.Write(last)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// verifyMAC compares in constant time.
func verifyMAC(key []byte, sig, domain string, fields ...string) bool {
	return verifyMACWith(key, sig, domain, fields, nil)
}

// verifyMACWith is verifyMAC for a signature made by macWith.
func verifyMACWith(key []byte, sig, domain string, fields []string, last []byte) bool {
	if len(key) == 0 || sig == "" {
		return false
	}
	want := macWith(key, domain, fields, last)
	return hmac.Equal([]byte(strings.ToLower(sig)), []byte(want))
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
