package store

// Warning is something Load wants a human to know while it still returns
// a usable (never more permissive) engine.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (w Warning) String() string { return w.Message }

// Warning codes.
const (
	WarnPending        = "policy-pending"        // policy.yaml differs from the accepted policy
	WarnInvalid        = "policy-invalid"        // policy.yaml does not parse (message has file:line)
	WarnMissing        = "policy-missing"        // policy.yaml is missing or unreadable
	WarnNotAccepted    = "policy-not-accepted"   // nothing accepted: everything escalates
	WarnBadRecord      = "policy-record-invalid" // the accepted record fails verification
	WarnBadRemembered  = "remembered-invalid"    // a remembered decision is unsigned or tampered
	WarnRememberedFile = "remembered-unreadable" // the remembered decisions cannot be read
)
