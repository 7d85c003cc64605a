package policy

import _ "embed"

//go:embed default_policy.yaml
var defaultYAML []byte

// DefaultYAML returns the commented default policy that `sandbox init`
// writes to .sandbox/policy.yaml (and records as accepted).
func DefaultYAML() []byte {
	return append([]byte(nil), defaultYAML...)
}
