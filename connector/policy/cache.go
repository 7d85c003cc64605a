package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The compiled form of the accepted policy is cached in the per-folder
// state dir (package connector/policy/store signs and keeps it), so that a
// hook or `sandbox check` does not decode YAML on every call. This is its
// payload: EncodeCache writes it, DecodeCache reads it.
const cacheVersion = "4" // 2: shims; 3: every non-rule field of Policy as JSON; 4: jailed

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

// DecodeCache rebuilds the policy whose bytes hash to sha. The lines
// are cut out of one string (no copy per line or field), and shell rules
// whose command name is a plain word are compiled on first use: the
// cache is signed and was written from a parsed policy.
func DecodeCache(data []byte, file, sha string) (*Policy, error) {
	text := string(data)
	head, text, _ := strings.Cut(text, "\n")
	if head != "sandbox-policy-cache\t"+cacheVersion+"\t"+sha {
		return nil, fmt.Errorf("cache is for another policy")
	}
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
// on first use (lazyargv.go); another trigger's pattern compiles when its
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
