package queue

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Results are authenticated with the per-user key (HMAC-SHA256), so that
// a done/ID.json that an agent or a jailed process planted can never be
// taken for one the trusted side wrote. The MAC covers the folder's root
// (a result copied from another project does not verify here) and the
// result's own encoding with the mac field empty; readers re-encode what
// they decoded and compare in constant time.
//
// A reader without the key (a shim inside the jail, which must never read
// the per-user state) cannot verify. It relies on the jail instead: done/
// is read-only there and nothing the trusted side stages is in a
// directory the jail can write, so every file it can see in done/ was put
// there from outside the jail. See docs/QUEUE.md.
const macDomain = "sandbox-result/v1"

// WithKey sets the per-user key: results are signed when written and
// verified when read. A result that fails verification is quarantined and
// reported as ErrForged, never returned as a decision.
func WithKey(key []byte) Option {
	return func(q *Queue) { q.key = append([]byte(nil), key...) }
}

// Verifies reports whether this queue checks results (it has the key).
func (q *Queue) Verifies() bool { return len(q.key) > 0 }

// resultMAC is the hex HMAC of res (its Mac field ignored) for folder root.
func resultMAC(key []byte, root string, res *Result) (string, error) {
	c := *res
	c.MAC = ""
	data, err := encode(&c)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	canonical{m}.item(macDomain)
	canonical{m}.item(root)
	m.Write(data)
	return hex.EncodeToString(m.Sum(nil)), nil
}

// sign sets res.MAC when the queue has the key. res is first brought to
// the form a reader decodes (the encoder writes invalid UTF-8 as the
// escape \ufffd, a decoded U+FFFD as its bytes), so that the reader's
// re-encoding is byte for byte what was signed.
func (q *Queue) sign(res *Result) error {
	if !q.Verifies() {
		return nil
	}
	res.MAC = ""
	data, err := encode(res)
	if err != nil {
		return err
	}
	var norm Result
	if err := decodeStrict(data, &norm); err != nil {
		return fmt.Errorf("bug: a result does not decode: %w", err)
	}
	*res = norm
	mac, err := resultMAC(q.key, q.f.Root, res)
	if err != nil {
		return err
	}
	res.MAC = mac
	return nil
}

// verify checks res.MAC when the queue has the key.
func (q *Queue) verify(res *Result) error {
	if !q.Verifies() {
		return nil
	}
	if res.MAC == "" {
		return fmt.Errorf("%w: %w: no MAC", ErrForged, ErrBadFile)
	}
	want, err := resultMAC(q.key, q.f.Root, res)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(want), []byte(res.MAC)) {
		return fmt.Errorf("%w: %w: MAC does not verify with the per-user key", ErrForged, ErrBadFile)
	}
	return nil
}
