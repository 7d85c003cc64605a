package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// Policies is what the dashboard needs of the policy engine to show and
// accept pending policy changes (connector/policy provides it).
type Policies interface {
	// Pending returns the folder's policy.yaml (nil when missing), the
	// policy accepted last (nil when none), and whether they differ.
	Pending(f folder.Folder) (current, accepted []byte, changed bool, err error)
	// Accept records data as the policy a human accepted for f; an
	// invalid policy is refused.
	Accept(f folder.Folder, data []byte) error
	// Diff is the unified diff from the accepted policy to the current.
	Diff(accepted, current []byte) string
	// Remembered lists the folder's remembered decisions in force (signed
	// and valid ones only), and warnings about the others.
	Remembered(f folder.Folder) ([]RememberedView, []string)
}

// RememberedView is one remembered decision ("approve always") as the
// Policy tab shows it; every text escaped.
type RememberedView struct {
	ID      string    `json:"id"`
	Trigger string    `json:"trigger"`
	Tier    string    `json:"tier"`
	Pattern string    `json:"pattern"`
	By      string    `json:"by,omitempty"`
	Created time.Time `json:"created,omitzero"`
}

// PolicyView is a folder's policy state. Changed means policy.yaml
// differs from the policy in force (the last accepted); Diff shows how,
// each line escaped. Accepting requires Current, the SHA-256 of the
// policy.yaml that was shown.
type PolicyView struct {
	Folder   string `json:"folder"`
	Changed  bool   `json:"changed"`
	Current  string `json:"current_sha256,omitempty"`
	Accepted string `json:"accepted_sha256,omitempty"`
	Diff     string `json:"diff,omitempty"`
	Error    string `json:"error,omitempty"`
	// Text is the accepted policy (the one in force), each line escaped;
	// Remembered the remembered decisions in force beside it.
	Text       string           `json:"text,omitempty"`
	Remembered []RememberedView `json:"remembered"`
	Warnings   []string         `json:"warnings,omitempty"`
}

// policy reads the folder's policy state; nil without a policy store.
func (fs *folderState) policy() (*PolicyView, []byte) {
	p := fs.s.cfg.Policies
	if p == nil {
		return nil, nil
	}
	v := &PolicyView{Folder: fs.key}
	current, accepted, changed, err := p.Pending(fs.f)
	if err != nil {
		v.Error = display.EscapeLine(err.Error())
	}
	v.Changed = changed && current != nil
	v.Current, v.Accepted = sha256Hex(current), sha256Hex(accepted)
	if v.Changed {
		v.Diff = escapeBlock(p.Diff(accepted, current))
	}
	v.Text = escapeBlock(string(accepted))
	rem, warns := p.Remembered(fs.f)
	v.Remembered = make([]RememberedView, 0, len(rem))
	for _, r := range rem {
		v.Remembered = append(v.Remembered, RememberedView{ID: display.EscapeLine(r.ID), Trigger: display.EscapeLine(r.Trigger),
			Tier: display.EscapeLine(r.Tier), Pattern: display.EscapeLine(r.Pattern), By: display.EscapeLine(r.By), Created: r.Created})
	}
	for _, w := range warns {
		v.Warnings = append(v.Warnings, display.EscapeLine(w))
	}
	return v, current
}

// policyChanged returns the folder's policy state when it differs from
// the one last published.
func (fs *folderState) policyChanged() *PolicyView {
	v, _ := fs.policy()
	if v == nil {
		return nil
	}
	sig := fmt.Sprint(v.Changed, v.Current, v.Accepted, v.Error, v.Remembered, v.Warnings)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if sig == fs.lastPolicy {
		return nil
	}
	fs.lastPolicy = sig
	return v
}

// acceptPolicy accepts policy.yaml if it is still the one shown (its
// SHA-256 is shown), auditing the intent first: if the audit log cannot
// be written, nothing is accepted.
func (fs *folderState) acceptPolicy(shown string) (*PolicyView, error) {
	p := fs.s.cfg.Policies
	if p == nil {
		return nil, errNoPolicies
	}
	v, current := fs.policy()
	switch {
	case !v.Changed:
		return nil, errNoPolicyChange
	case shown != v.Current:
		return nil, errPolicyChanged
	}
	who := fs.ap.Identity()
	_, err := fs.audit.Append(audit.Entry{
		Actor: "approver:" + approver.SurfaceServe, Event: "policy.accepted", Decision: "accepted",
		ContentHash: "sha256:" + v.Current, Detail: map[string]any{"user": who.User, "previous": v.Accepted},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", approver.ErrAuditRefused, err)
	}
	if err := p.Accept(fs.f, current); err != nil {
		return nil, err
	}
	v, _ = fs.policy()
	return v, nil
}

func sha256Hex(b []byte) string {
	if b == nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
