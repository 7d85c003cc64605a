package policy

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Approver is a key that the folder trusts to decide its requests from
// another machine (team mode: `sandbox relay` executes a decision signed
// by it when the request lies within its scope). It takes effect like
// every policy change: once a human accepted the policy that lists it.
type Approver struct {
	Name string
	// Key is the public key: "ed25519:" and the 32 bytes in standard
	// base64 (ApproverKey), as `sandbox keys show` prints it.
	Key string
	// Scope limits what the key may decide; empty: every request of the
	// folder. Entries of one dimension are alternatives, the dimensions
	// all apply: "kind:K" (shell, write, read, network, mcp),
	// "command:PATTERN" (a shell rule's pattern that every command of a
	// shell request must match), "host:GLOB" (the machine's name),
	// "project:GLOB" (the project's name).
	Scope []string `json:",omitempty"`
}

// ApproverKeyPrefix starts a written approver key.
const ApproverKeyPrefix = "ed25519:"

// ApproverKey decodes a written approver key.
func ApproverKey(s string) (ed25519.PublicKey, error) {
	b64, ok := strings.CutPrefix(strings.TrimSpace(s), ApproverKeyPrefix)
	if !ok {
		return nil, fmt.Errorf("approver key %q: want %s and the key in base64 (`sandbox keys show` prints it)", s, ApproverKeyPrefix)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("approver key %q: not %d bytes of base64", s, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// FormatApproverKey writes a public key as the policy lists it.
func FormatApproverKey(pub ed25519.PublicKey) string {
	return ApproverKeyPrefix + base64.StdEncoding.EncodeToString(pub)
}

// scopeKinds are the request kinds a kind: scope names.
var scopeKinds = []string{"shell", "write", "read", "network", "mcp"}

// CheckScope checks one scope entry.
func CheckScope(s string) error {
	dim, val, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(val) == "" {
		return fmt.Errorf("scope %q: want kind:K, command:PATTERN, host:GLOB or project:GLOB", s)
	}
	switch dim {
	case "kind":
		for _, k := range scopeKinds {
			if val == k {
				return nil
			}
		}
		return fmt.Errorf("scope %q: the kind is one of %s", s, strings.Join(scopeKinds, ", "))
	case "command":
		if _, err := compileArgv(val); err != nil {
			return fmt.Errorf("scope %q: %v", s, err)
		}
		return nil
	case "host", "project":
		if _, err := path.Match(val, ""); err != nil {
			return fmt.Errorf("scope %q: %v", s, err)
		}
		return nil
	}
	return fmt.Errorf("scope %q: want kind:K, command:PATTERN, host:GLOB or project:GLOB", s)
}

// ValidApproverName reports whether name can name an approver: letters,
// digits and ._@+- , at most 64 bytes (it is shown as who decided).
func ValidApproverName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._@+-", c) >= 0) {
			return false
		}
	}
	return true
}

// approverDoc is one entry of the approvers: list.
type approverDoc struct {
	Name  yaml.Node   `yaml:"name"`
	Key   yaml.Node   `yaml:"key"`
	Scope []yaml.Node `yaml:"scope"`
}

// approvers checks the approvers: list: each a valid name, a key that
// decodes, scope entries that parse; no key or name listed twice.
func (c *collector) approvers(docs []approverDoc) []Approver {
	var out []Approver
	keys, names := map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		a := Approver{Name: d.Name.Value, Key: strings.TrimSpace(d.Key.Value)}
		ok := true
		if d.Name.Kind != yaml.ScalarNode || !ValidApproverName(a.Name) {
			c.add(d.Name.Line, "approvers: name %q: letters, digits and ._@+- only, at most 64", a.Name)
			ok = false
		}
		if d.Key.Kind != yaml.ScalarNode {
			c.add(d.Name.Line, "approvers: %s has no key", a.Name)
			ok = false
		} else if _, err := ApproverKey(a.Key); err != nil {
			c.add(d.Key.Line, "approvers: %v", err)
			ok = false
		}
		if names[a.Name] || keys[a.Key] {
			c.add(d.Name.Line, "approvers: %s or its key is listed twice", a.Name)
			ok = false
		}
		names[a.Name], keys[a.Key] = true, true
		for _, n := range d.Scope {
			if n.Kind != yaml.ScalarNode {
				c.add(n.Line, "approvers: a scope entry is a string")
				ok = false
				continue
			}
			if err := CheckScope(n.Value); err != nil {
				c.add(n.Line, "approvers: %s: %v", a.Name, err)
				ok = false
				continue
			}
			a.Scope = append(a.Scope, n.Value)
		}
		if ok {
			out = append(out, a)
		}
	}
	return out
}

// ErrNoApprover is returned by Policy.Approver for a key the policy does
// not list.
var ErrNoApprover = errors.New("the accepted policy trusts no approver with this key")

// Approver returns the approver the policy lists with key.
func (p *Policy) Approver(key string) (Approver, error) {
	for _, a := range p.Approvers {
		if a.Key == key {
			return a, nil
		}
	}
	return Approver{}, ErrNoApprover
}
