package policy

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

type namedTrigger[T any] struct {
	trig Trigger
	doc  T
}

func (d *fileDoc) triggers() []namedTrigger[*triggerDoc] {
	return []namedTrigger[*triggerDoc]{
		{Shell, d.Shell}, {Write, d.Write}, {Read, d.Read}, {Network, d.Network}, {MCP, d.MCP},
	}
}

func (d *ciDoc) triggers() []namedTrigger[*ciRulesDoc] {
	return []namedTrigger[*ciRulesDoc]{
		{Shell, d.Shell}, {Write, d.Write}, {Read, d.Read}, {Network, d.Network}, {MCP, d.MCP},
	}
}

func (c *collector) ruleSet(t Trigger, d *triggerDoc) *RuleSet {
	rs := &RuleSet{}
	if d == nil {
		return rs
	}
	rs.Allow = c.rules(t, Allow, d.Allow)
	rs.Escalate = c.rules(t, Escalate, d.Escalate)
	rs.Deny = c.rules(t, Deny, d.Deny)
	return rs
}

func (c *collector) ciSet(t Trigger, d *ciRulesDoc) *RuleSet {
	rs := &RuleSet{}
	if d == nil {
		return rs
	}
	rs.Allow = c.rules(t, Allow, d.Approve)
	rs.Deny = c.rules(t, Deny, d.Deny)
	return rs
}

func (c *collector) rules(t Trigger, tier Tier, nodes []yaml.Node) []*Rule {
	var out []*Rule
	for i := range nodes {
		if r := c.rule(t, tier, &nodes[i]); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// rule decodes one rule: a pattern string, or a mapping with pattern,
// reason, (shell allow rules) dynamic and (shell rules) jailed.
func (c *collector) rule(t Trigger, tier Tier, n *yaml.Node) *Rule {
	r := &Rule{Trigger: t, Tier: tier, Line: n.Line}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			c.add(n.Line, "empty %s rule", t)
			return nil
		}
		r.Pattern = n.Value
	case yaml.MappingNode:
		if !c.ruleFields(r, n) {
			return nil
		}
	default:
		c.add(n.Line, "a %s rule is a pattern string or a mapping {pattern: ..., reason: ...}", t)
		return nil
	}
	if err := r.compile(); err != nil {
		c.add(n.Line, "%s %s rule: %v", t, tier, err)
		return nil
	}
	return r
}

func (c *collector) ruleFields(r *Rule, n *yaml.Node) bool {
	ok, seen := true, map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			c.add(k.Line, "duplicate key %q in rule", k.Value)
			ok = false
		}
		seen[k.Value] = true
		if err := setRuleField(r, k.Value, v); err != nil {
			c.add(k.Line, "%v", err)
			ok = false
		}
	}
	if ok && r.Pattern == "" {
		c.add(n.Line, "rule has no pattern")
		ok = false
	}
	return ok
}

func setRuleField(r *Rule, key string, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return fmt.Errorf("rule key %q needs a value", key)
	}
	switch key {
	case "pattern":
		r.Pattern = v.Value
	case "reason":
		r.Reason = v.Value
	case "dynamic":
		if r.Trigger != Shell || r.Tier != Allow {
			return fmt.Errorf("`dynamic` applies only to shell allow rules")
		}
		if v.Tag != "!!bool" {
			return fmt.Errorf("`dynamic` must be true or false")
		}
		r.Dynamic = v.Value == "true"
	case "jailed":
		if r.Trigger != Shell {
			return fmt.Errorf("`jailed` applies only to shell rules")
		}
		if v.Tag != "!!bool" {
			return fmt.Errorf("`jailed` must be true or false")
		}
		r.Jailed = v.Value == "true"
	default:
		return fmt.Errorf("unknown key %q in rule (pattern, reason, dynamic, jailed)", key)
	}
	return nil
}

// compile checks and compiles the rule's pattern for its trigger.
func (r *Rule) compile() error {
	var err error
	switch r.Trigger {
	case Shell:
		r.argv, err = compileArgv(r.Pattern)
	case Write, Read:
		r.path, err = compilePath(r.Pattern)
	case Network:
		r.host, err = compileHost(r.Pattern)
	case MCP:
		r.tool, err = compileTool(r.Pattern)
	default:
		err = fmt.Errorf("bug: unknown trigger %q", r.Trigger)
	}
	return err
}
