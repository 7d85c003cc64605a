package policy

import (
	"fmt"
	"time"
)

// Remembered is a human's "always allow" or "always deny" for one
// pattern of one trigger in one folder. Entries live in the per-folder
// state dir (which the jail can neither read nor write), each signed with
// the per-user key over the folder root and every field: package
// connector/policy/store keeps them; the engine applies the ones it is
// given (Options.Remembered).
type Remembered struct {
	Trigger Trigger   `json:"trigger"`
	Tier    Tier      `json:"tier"` // Allow or Deny
	Pattern string    `json:"pattern"`
	Reason  string    `json:"reason,omitempty"`
	By      string    `json:"by,omitempty"` // who decided, for the audit
	Created time.Time `json:"created"`
	MAC     string    `json:"mac"`
}

// rule compiles the entry into a rule; the error names what is wrong.
func (r *Remembered) rule() (*Rule, error) {
	if r.Tier != Allow && r.Tier != Deny {
		return nil, fmt.Errorf("remembered decision must be allow or deny, not %v", r.Tier)
	}
	rule := &Rule{Trigger: r.Trigger, Tier: r.Tier, Pattern: r.Pattern, Reason: r.Reason}
	if err := rule.compile(); err != nil {
		return nil, err
	}
	return rule, nil
}

// Validate reports an entry the engine cannot apply: a tier other than
// allow or deny, or a pattern that does not compile for its trigger.
func (r *Remembered) Validate() error {
	_, err := r.rule()
	return err
}

// ID is a short, stable name for the entry (a prefix of its signature),
// which `sandbox remembered forget` takes.
func (r *Remembered) ID() string {
	if len(r.MAC) < 12 {
		return r.MAC
	}
	return r.MAC[:12]
}
