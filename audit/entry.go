package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// validate checks e against the record schema. Every field is a bounded
// token, so a record line never carries free text outside Detail.
func validate(e Entry) error {
	checks := []struct {
		name, value, extra string
		max                int
		required           bool
	}{
		{"actor", e.Actor, ":._-", 64, true},
		{"event", e.Event, "._-", 64, true},
		{"request_id", e.RequestID, "-", 64, false},
		{"decision", e.Decision, "_-", 32, false},
		{"content_hash", e.ContentHash, ":_-ABCDEFGHIJKLMNOPQRSTUVWXYZ", 128, false},
	}
	for _, c := range checks {
		if !token(c.value, c.extra, c.max, c.required) {
			return fmt.Errorf("%w: %s %q", ErrInvalidEntry, c.name, c.value)
		}
	}
	return nil
}

// token reports whether s is at most max bytes of [a-z0-9] plus the
// bytes in extra, and non-empty when required.
func token(s, extra string, max int, required bool) bool {
	if len(s) > max || (required && s == "") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		for j := 0; !ok && j < len(extra); j++ {
			ok = c == extra[j]
		}
		if !ok {
			return false
		}
	}
	return true
}

// encodeDetail encodes d with sorted keys. Detail larger than MaxDetail is
// replaced by its size and digest, so a huge detail never blocks an action.
func encodeDetail(d map[string]any) (json.RawMessage, error) {
	if len(d) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("%w: detail: %w", ErrInvalidEntry, err)
	}
	if len(b) <= MaxDetail {
		return b, nil
	}
	sum := sha256.Sum256(b)
	return json.Marshal(map[string]any{
		"oversized": true, "bytes": len(b), "sha256": hex.EncodeToString(sum[:]),
	})
}
