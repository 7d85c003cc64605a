package policy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// compiledMagic starts every compiled-policy cache; the version in it
// changes whenever the layout does.
const compiledMagic = "sandbox-compiled-policy/2\n"

// errCompiled is wrapped by every DecodeCompiled error.
var errCompiled = errors.New("compiled policy cache")

// EncodeCompiled returns p's rules (every trigger, not the ci: section,
// limits, broker or hook settings) in the compact form DecodeCompiled
// reads. Run mode writes it where its jail can read but not write, for
// the PATH shims, which cannot read the accepted policy in the per-user
// state dir and must not pay for YAML on every call.
func EncodeCompiled(p *Policy) []byte {
	b := append([]byte(compiledMagic), p.SHA256...)
	b = append(b, '\n')
	for _, t := range []Trigger{Shell, Write, Read, Network, MCP} {
		rs := p.Rules[t]
		if rs == nil {
			continue
		}
		for _, list := range [][]*Rule{rs.Allow, rs.Escalate, rs.Deny} {
			for _, r := range list {
				b = appendRule(b, r)
			}
		}
	}
	return b
}

func appendRule(b []byte, r *Rule) []byte {
	flags := byte(0)
	if r.Dynamic {
		flags |= flagDynamic
	}
	if r.Jailed {
		flags |= flagJailed
	}
	b = append(b, triggerCode(r.Trigger), byte(r.Tier), flags)
	b = binary.AppendUvarint(b, uint64(r.Line))
	b = appendString(b, r.Pattern)
	return appendString(b, r.Reason)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// A rule's flags byte.
const (
	flagDynamic = 1 << iota
	flagJailed
	flagsAll = flagDynamic | flagJailed
)

var triggerCodes = []Trigger{Shell, Write, Read, Network, MCP}

func triggerCode(t Trigger) byte {
	for i, c := range triggerCodes {
		if c == t {
			return byte(i)
		}
	}
	return 0xff
}

// DecodeCompiled reads what EncodeCompiled wrote. Patterns compile as
// strictly as in a policy file, but late: a shell pattern whose command
// name is a plain word (which always compiles) the first time a decision
// looks up that name, another trigger's pattern when that trigger's index
// is built (one that does not compile then fails closed: see
// Engine.buildIndex); other shell patterns now. Only Rules (shell rules
// through Engine.Policy, see lazyshell.go), SHA256 and Version are set.
func DecodeCompiled(data []byte) (*Policy, error) {
	rest, ok := bytes.CutPrefix(data, []byte(compiledMagic))
	if !ok {
		return nil, fmt.Errorf("%w: bad header", errCompiled)
	}
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || nl > 128 {
		return nil, fmt.Errorf("%w: bad hash line", errCompiled)
	}
	p := &Policy{SHA256: string(rest[:nl]), Version: Version, Rules: map[Trigger]*RuleSet{}, CI: map[Trigger]*RuleSet{},
		lazy: &lazyShell{}}
	for _, t := range triggerCodes {
		p.Rules[t] = &RuleSet{}
	}
	d := decoder{b: rest[nl+1:]}
	for len(d.b) > 0 {
		r, err := d.rule()
		if err != nil {
			return nil, err
		}
		switch {
		case r.Trigger != Shell:
			p.Rules[r.Trigger].add(r)
		case r.lazy != nil: // a literal command name: filed under it on its first lookup
			p.lazy.lines = append(p.lazy.lines, shellLine{rule: r, tier: r.Tier, name: r.lazy.name, hasSlash: r.lazy.hasSlash, jailed: r.Jailed})
		default:
			p.lazy.lines = append(p.lazy.lines, shellLine{rule: r, tier: r.Tier, jailed: r.Jailed})
		}
	}
	return p, nil
}

type decoder struct{ b []byte }

func (d *decoder) rule() (*Rule, error) {
	if len(d.b) < 3 || int(d.b[0]) >= len(triggerCodes) || d.b[1] < byte(Allow) || d.b[1] > byte(Deny) || d.b[2]&^flagsAll != 0 {
		return nil, fmt.Errorf("%w: bad rule header", errCompiled)
	}
	r := &Rule{Trigger: triggerCodes[d.b[0]], Tier: Tier(d.b[1]), Dynamic: d.b[2]&flagDynamic != 0, Jailed: d.b[2]&flagJailed != 0}
	d.b = d.b[3:]
	line, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	r.Line = int(line)
	if r.Pattern, err = d.str(); err != nil {
		return nil, err
	}
	if r.Reason, err = d.str(); err != nil {
		return nil, err
	}
	if r.Dynamic && (r.Trigger != Shell || r.Tier != Allow) {
		return nil, fmt.Errorf("%w: `dynamic` on a %s %s rule", errCompiled, r.Trigger, r.Tier)
	}
	if r.Jailed && r.Trigger != Shell {
		return nil, fmt.Errorf("%w: `jailed` on a %s rule", errCompiled, r.Trigger)
	}
	switch {
	case r.deferShell(): // a plain-named shell pattern always compiles: on first use
	case r.Trigger != Shell: // compiled when its trigger's index is built (Engine.buildIndex)
	case r.compile() != nil:
		return nil, fmt.Errorf("%w: shell pattern %q does not compile", errCompiled, r.Pattern)
	}
	return r, nil
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > MaxPolicySize {
		return 0, fmt.Errorf("%w: bad number", errCompiled)
	}
	d.b = d.b[n:]
	return v, nil
}

func (d *decoder) str() (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if n > uint64(len(d.b)) {
		return "", fmt.Errorf("%w: truncated", errCompiled)
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s, nil
}
