package policy

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The compiled form of the accepted policy is cached in the per-folder
// state dir (package connector/policy/store signs and keeps it), so that a
// hook or `sandbox check` does not decode YAML on every call. This is its
// payload: EncodeCache writes it, DecodeCache reads it.
const cacheVersion = "6" // 2: shims; 3: every non-rule field of Policy as JSON; 4: jailed; 5: agents; 6: approvers

var cacheTriggers = []Trigger{Shell, Write, Read, Network, MCP}

// defaultSettings is the S line of a policy that sets nothing but its
// version (the default policy's): DecodeCache takes it without
// encoding/json, whose first use in a process costs about 0.2 ms.
// TestDefaultSettingsLine keeps it in step with Policy.
const defaultSettings = `{"File":"","SHA256":"","Version":1,"Rules":null,"CI":null,` +
	`"Limits":{"Memory":"","PIDs":0,"CPU":""},"Broker":{"Env":null},"Hook":{"Wait":0,"DeferAllow":false},"Run":{"Env":{}},"Shims":null}`

// EncodeCache writes p as lines: a header naming the policy's SHA-256,
// the non-rule settings as JSON, then one line per rule with
// tab-separated, quoted fields.
func EncodeCache(p *Policy) ([]byte, error) {
	settings, err := json.Marshal(settingsOf(p))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "sandbox-policy-cache\t%s\t%s\nS\t%s\n", cacheVersion, p.SHA256, settings)
	for _, set := range []struct {
		ci    string
		rules map[Trigger]*RuleSet
	}{{"0", p.Rules}, {"1", p.CI}} {
		for _, t := range cacheTriggers {
			rs := set.rules[t]
			if rs == nil {
				continue
			}
			for _, list := range [][]*Rule{rs.Deny, rs.Escalate, rs.Allow} {
				for _, r := range list {
					fmt.Fprintf(&b, "R\t%s\t%s\t%d\t%s\t%d\t%t\t%s\t%s\t%t\n", set.ci, t, int(r.Tier), r.Tier, r.Line,
						r.Dynamic, strconv.Quote(r.Pattern), strconv.Quote(r.Reason), r.Jailed)
				}
			}
		}
	}
	return b.Bytes(), nil
}

// settingsOf is p without its rules and provenance: every other field of
// Policy (limits, broker, hook, shims and whatever later issues add) goes
// through JSON, so the cache never drops a setting.
func settingsOf(p *Policy) *Policy {
	s := *p
	s.File, s.SHA256, s.Rules, s.CI = "", "", nil, nil
	return &s
}

// CacheIsOf reports whether data, an EncodeCache, is of this version and
// of the policy bytes hashing to sha.
func CacheIsOf(data []byte, sha string) bool {
	head, _, _ := bytes.Cut(data, []byte("\n"))
	return string(head) == "sandbox-policy-cache\t"+cacheVersion+"\t"+sha
}

// DecodeCache rebuilds the policy whose bytes hash to sha. The lines
// are cut out of one string (no copy per line or field), and shell rules
// whose command name is a plain word are compiled on first use: the
// cache is signed and was written from a parsed policy.
func DecodeCache(data []byte, file, sha string) (*Policy, error) {
	if !CacheIsOf(data, sha) {
		return nil, fmt.Errorf("cache is for another policy")
	}
	_, text, _ := strings.Cut(string(data), "\n")
	p := &Policy{File: file, SHA256: sha, Rules: map[Trigger]*RuleSet{}, CI: map[Trigger]*RuleSet{}}
	for _, t := range cacheTriggers {
		p.Rules[t] = &RuleSet{}
	}
	p.lazy = &lazyShell{lines: make([]shellLine, 0, strings.Count(text, "\nR\t0\tshell\t"))}
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		if err := p.decodeCacheLine(line); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Policy) decodeCacheLine(line string) error {
	kind, rest, _ := strings.Cut(line, "\t")
	switch kind {
	case "S":
		var s Policy
		if rest == defaultSettings {
			s.Version = Version // what the JSON decodes to, without reflection
		} else if err := json.Unmarshal([]byte(rest), &s); err != nil {
			return err
		}
		s.File, s.SHA256, s.Rules, s.CI, s.lazy = p.File, p.SHA256, p.Rules, p.CI, p.lazy
		*p = s
		return nil
	case "R":
		var f [cacheRuleFields]string
		if !splitFields(rest, f[:]) {
			return fmt.Errorf("bad cache rule")
		}
		return p.decodeCacheRule(rest, f[:])
	}
	return fmt.Errorf("bad cache line %q", kind)
}

// cacheRuleFields is the number of tab-separated fields of an R line.
const cacheRuleFields = 9

// splitFields cuts s at tabs into exactly len(f) fields.
func splitFields(s string, f []string) bool {
	for i := range f[:len(f)-1] {
		var ok bool
		if f[i], s, ok = strings.Cut(s, "\t"); !ok {
			return false
		}
	}
	f[len(f)-1] = s
	return !strings.Contains(s, "\t")
}

func (p *Policy) decodeCacheRule(rest string, f []string) error {
	if f[0] == "0" && f[1] == string(Shell) && p.lazy.deferLine(rest, f) {
		return nil
	}
	r, err := parseCacheRule(f, f[0] == "1")
	if err != nil {
		return err
	}
	switch {
	case f[0] == "1":
		rs := p.CI[r.Trigger]
		if rs == nil {
			rs = &RuleSet{}
			p.CI[r.Trigger] = rs
		}
		rs.add(r)
	case r.Trigger == Shell:
		p.lazy.lines = append(p.lazy.lines, shellLine{rule: r, tier: r.Tier, jailed: r.Jailed})
	default:
		p.Rules[r.Trigger].add(r)
	}
	return nil
}

// parseCacheRule decodes the fields of an R line into a rule. A shell pattern with a literal command name compiles
// on first use (lazyArgv in match_argv.go); another trigger's pattern compiles when its
// index is built (Engine.buildIndex) unless compileNow: a hook deciding a
// Bash call never builds the write, read, network or MCP index.
func parseCacheRule(f []string, compileNow bool) (*Rule, error) {
	if len(f) != cacheRuleFields {
		return nil, fmt.Errorf("bad cache rule")
	}
	tier, err1 := strconv.Atoi(f[2])
	line, err2 := strconv.Atoi(f[4])
	pat, err3 := strconv.Unquote(f[6])
	reason, err4 := strconv.Unquote(f[7])
	if err := firstErr(err1, err2, err3, err4); err != nil {
		return nil, fmt.Errorf("bad cache rule: %w", err)
	}
	r := &Rule{Trigger: Trigger(f[1]), Tier: Tier(tier), Line: line, Dynamic: f[5] == "true", Pattern: pat, Reason: reason,
		Jailed: f[8] == "true"}
	switch {
	case r.Tier < Allow || r.Tier > Deny:
		return nil, fmt.Errorf("bad cache rule %q", pat)
	case r.deferShell():
	case !compileNow && (r.Trigger == Write || r.Trigger == Read || r.Trigger == Network || r.Trigger == MCP):
	case r.compile() != nil:
		return nil, fmt.Errorf("bad cache rule %q", pat)
	}
	return r, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

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
// through Engine.Policy, see lazyShell), SHA256 and Version are set.
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

var errBadLine = errors.New("bad cache rule")

// lazyShell holds the shell rules of a policy decoded from the signed
// cache, in the cache's order. A rule whose command name can be read off
// its text stays an undecoded line until a decision looks up that name
// (see tierRules.forAllow and forMay): a hook decides one command, whose
// name picks a few of the policy's hundreds of shell rules. Every other
// reader of the rules gets them all through Engine.Policy, which
// materializes them first.
type lazyShell struct {
	lines []shellLine
	once  sync.Once // materialize
}

// shellLine is one shell rule of a cache. With a name, it is filed under
// that command name on the first lookup of the name; without one, it is
// indexed at once. Its rule is decoded already (the compiled cache, or a
// rule indexed at once) or decoded from rest (the text cache's R line
// after "R\t").
type shellLine struct {
	rule     *Rule
	rest     string
	tier     Tier
	name     string // the literal command name; "" for a rule indexed at once
	hasSlash bool
	jailed   bool // the rule counts only on a jailed engine
}

// deferred reports a line filed on the first lookup of its name.
func (l *shellLine) deferred() bool { return l.name != "" }

// deferLine keeps an R line of the policy's shell rules undecoded when
// its pattern is a plain quoted string with a literal command name; it
// reports false when the line must be decoded now.
func (l *lazyShell) deferLine(rest string, f []string) bool {
	q := f[6]
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' || strings.IndexByte(q, '\\') >= 0 {
		return false
	}
	name, hasSlash, ok := literalName(q[1 : len(q)-1])
	tier, ok2 := tierField(f[2])
	if !ok || !ok2 {
		return false
	}
	l.lines = append(l.lines, shellLine{rest: rest, tier: tier, name: name, hasSlash: hasSlash, jailed: f[8] == "true"})
	return true
}

func tierField(s string) (Tier, bool) {
	if len(s) != 1 || Tier(s[0]-'0') < Allow || Tier(s[0]-'0') > Deny {
		return 0, false
	}
	return Tier(s[0] - '0'), true
}

// decode returns line l's rule (a new one each time for a deferred
// line: lines are shared, read-only, by the index and materialize). A
// line that does not decode (impossible for a signed cache written from
// a parsed policy) becomes a rule whose pattern never compiles, which
// matches as a deny or escalate rule and never as an allow rule (see
// matchShell).
func (l *shellLine) decode() *Rule {
	if l.rule != nil {
		return l.rule
	}
	var f [cacheRuleFields]string
	r, err := (*Rule)(nil), errBadLine
	if splitFields(l.rest, f[:]) {
		r, err = parseCacheRule(f[:], true)
	}
	if err != nil || r.Trigger != Shell || r.Tier != l.tier || r.Jailed != l.jailed || r.lazy == nil || r.lazy.name != l.name {
		r = &Rule{Trigger: Shell, Tier: l.tier, Pattern: l.rest, Reason: "undecodable cached rule",
			lazy: &lazyArgv{name: l.name, hasSlash: l.hasSlash}}
		r.lazy.once.Do(func() {}) // p stays nil: the pattern never compiles
	}
	return r
}

// materialize decodes every deferred shell rule into p.Rules[Shell], in
// the policy's order. It runs once per policy.
func (p *Policy) materialize() {
	if p.lazy == nil {
		return
	}
	p.lazy.once.Do(func() {
		rs := p.Rules[Shell]
		for i := range p.lazy.lines {
			rs.add(p.lazy.lines[i].decode())
		}
	})
}

// add appends r to its tier's list.
func (rs *RuleSet) add(r *Rule) {
	switch r.Tier {
	case Deny:
		rs.Deny = append(rs.Deny, r)
	case Escalate:
		rs.Escalate = append(rs.Escalate, r)
	default:
		rs.Allow = append(rs.Allow, r)
	}
}
