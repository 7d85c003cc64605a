// Package policy is the engine that classifies what an agent tries to do
// into allow, escalate or deny. It loads the user's policy.yaml strictly,
// injects the self-protection rules, enforces only the last policy a human
// accepted, and explains every decision part by part.
package policy

import "fmt"

// Tier is the outcome of a decision. The zero value is not a valid tier;
// ordering is by severity, so the maximum over parts is the whole's tier.
type Tier int

const (
	Allow Tier = iota + 1
	Escalate
	Deny
)

func (t Tier) String() string {
	switch t {
	case Allow:
		return "allow"
	case Escalate:
		return "escalate"
	case Deny:
		return "deny"
	}
	return "invalid"
}

// MarshalText encodes a tier as allow, escalate or deny.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Trigger is what kind of action a rule governs.
type Trigger string

const (
	Shell   Trigger = "shell"
	Write   Trigger = "write"
	Read    Trigger = "read"
	Network Trigger = "network"
	MCP     Trigger = "mcp"
)

// Part is one piece of the input (one simple command, one redirection
// target, one host) with its own tier and the rule or reason that decided.
type Part struct {
	Trigger  Trigger `json:"trigger"`
	Subject  string  `json:"subject"`  // the argv, path or host, as text
	Decision Tier    `json:"decision"` // this part's tier
	Rule     string  `json:"rule"`     // the pattern that matched, or "builtin:NAME", or "default"
	Reason   string  `json:"reason"`   // human-readable why
	// Propose is the narrowest pattern an "approve always" of this part
	// would remember (set on escalated parts; empty when none fits).
	Propose string `json:"propose,omitempty"`
	// Effect is what this part is, as the effect that decided it:
	// "exec node script.js", "write /p/build", "read ~/.ssh/id_rsa",
	// "host registry.npmjs.org:443".
	Effect string `json:"effect"`
	// Jailed says the command runs in the project jail (the decision
	// came from Engine.ForJail), as Decision.Jailed.
	Jailed bool `json:"jailed"`
}

// Decision is the engine's answer: the strictest tier over all parts,
// the human-readable reasons, and every part.
type Decision struct {
	Decision Tier     `json:"decision"`
	Reasons  []string `json:"reasons"`
	Parts    []Part   `json:"parts"`
	// Jailed says the action runs in the project jail: the decision came
	// from an engine made by Engine.ForJail.
	Jailed bool `json:"jailed"`
}

// UnmarshalText decodes allow, escalate or deny.
func (t *Tier) UnmarshalText(b []byte) error {
	for _, v := range []Tier{Allow, Escalate, Deny} {
		if string(b) == v.String() {
			*t = v
			return nil
		}
	}
	return fmt.Errorf("unknown tier %q", b)
}
