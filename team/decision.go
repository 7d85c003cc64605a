package team

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Verdicts a decision carries.
const (
	Approve = "approved"
	Deny    = "denied"
)

// Decision is one approver's signed verdict on one request of one
// folder on one machine. What the signature covers: every field but Sig
// (signedBytes).
type Decision struct {
	V       int    `json:"v"`
	Request string `json:"request"` // the request's id
	Hash    string `json:"hash"`    // its content hash (queue.Request.ComputeHash)
	Host    string `json:"host"`    // the machine that raised it
	Project string `json:"project"` // the folder's project name there
	Verdict string `json:"verdict"` // Approve or Deny
	Reason  string `json:"reason,omitempty"`
	// Approver is the name the signer gave itself; what is shown is the
	// name the folder's policy gives the key.
	Approver string    `json:"approver"`
	Key      string    `json:"key"` // the signer's public key, as policies list it
	Decided  time.Time `json:"decided"`
	Sig      string    `json:"sig"` // ed25519 over signedBytes, base64
}

// decisionVersion is the one version of the signed encoding.
const decisionVersion = 1

// Freshness bounds: a decision older than MaxAge, dated more than
// ClockSkew ahead of the checking machine, or before its request was
// raised is refused (a replay, or a clock too wrong to trust).
const (
	MaxAge    = 10 * time.Minute
	ClockSkew = 2 * time.Minute
)

// Why a decision is refused; each is audited by the caller.
var (
	ErrUnknownKey   = errors.New("signed by a key the folder's accepted policy does not trust")
	ErrBadSignature = errors.New("the signature does not check out")
	ErrWrongRequest = errors.New("made for another request, machine or project, or for this request's content before it changed")
	ErrOutOfScope   = errors.New("outside what the policy trusts this key to decide")
	ErrStale        = errors.New("too old, dated in the future, or older than its request")
	ErrMalformed    = errors.New("malformed decision")
)

// Sign fills in d's version, key and signature with priv.
func Sign(priv ed25519.PrivateKey, d Decision) Decision {
	d.V = decisionVersion
	d.Key = PublicKey(priv)
	d.Decided = d.Decided.UTC()
	d.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, signedBytes(&d)))
	return d
}

// signedBytes is d's canonical encoding: a domain string, then each
// field as an 8-byte big-endian length and its bytes, in a fixed order
// (no field can bleed into the next).
func signedBytes(d *Decision) []byte {
	var b []byte
	for _, f := range []string{"sandbox-team-decision/v1", fmt.Sprint(d.V), d.Request, d.Hash, d.Host, d.Project,
		d.Verdict, d.Reason, d.Approver, d.Key, d.Decided.UTC().Format(time.RFC3339Nano)} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// Target is what a decision must be for: a request as this machine holds
// it (read and validated from its own folder), the machine's name and
// the project's.
type Target struct {
	Req     *queue.Request
	Host    string
	Project string
}

// Verify checks d for t under the folder's accepted policy p (of the
// project at root) at now, and returns the approver the policy names for
// its key. Every check must pass; the error says which did not.
func Verify(d *Decision, t Target, p *policy.Policy, root string, now time.Time) (policy.Approver, error) {
	if d == nil || d.V != decisionVersion || d.Verdict != Approve && d.Verdict != Deny || t.Req == nil {
		return policy.Approver{}, ErrMalformed
	}
	var a policy.Approver
	var err error
	if p == nil {
		err = policy.ErrNoApprover
	} else {
		a, err = p.Approver(d.Key)
	}
	if err != nil {
		return a, ErrUnknownKey
	}
	pub, err := policy.ApproverKey(a.Key)
	if err != nil {
		return a, ErrUnknownKey
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(d.Sig)
	if err != nil || !ed25519.Verify(pub, signedBytes(d), sig) {
		return a, ErrBadSignature
	}
	if d.Request != t.Req.ID || d.Hash != t.Req.ComputeHash() || d.Host != t.Host || d.Project != t.Project {
		return a, ErrWrongRequest
	}
	if now.Sub(d.Decided) > MaxAge || d.Decided.Sub(now) > ClockSkew || t.Req.Created.Sub(d.Decided) > ClockSkew {
		return a, ErrStale
	}
	if !Covers(a, t, root) {
		return a, ErrOutOfScope
	}
	return a, nil
}
