package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxPolicySize bounds a policy file.
const MaxPolicySize = 1 << 20

// Parse decodes and validates a policy file strictly: unknown keys,
// wrong types, bad patterns and a missing or unknown version are errors
// that name file:line (a FileErrors, which wraps ErrInvalidPolicy).
func Parse(file string, data []byte) (*Policy, error) {
	if len(data) > MaxPolicySize {
		return nil, FileErrors{{File: file, Msg: fmt.Sprintf("larger than %d bytes", MaxPolicySize)}}
	}
	doc, typeErrs, err := decodeDoc(file, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	c := &collector{file: file, errs: typeErrs}
	p := &Policy{
		File: file, SHA256: hex.EncodeToString(sum[:]),
		Rules: map[Trigger]*RuleSet{}, CI: map[Trigger]*RuleSet{},
		Limits: doc.Limits,
	}
	p.Version = c.version(&doc.Version)
	for _, t := range doc.triggers() {
		p.Rules[t.trig] = c.ruleSet(t.trig, t.doc)
	}
	if doc.CI != nil {
		for _, t := range doc.CI.triggers() {
			p.CI[t.trig] = c.ciSet(t.trig, t.doc)
		}
	}
	p.Hook.Wait = c.duration("hook.wait", &doc.Hook.Wait)
	p.Hook.DeferAllow = doc.Hook.DeferAllow
	p.Broker.Env = c.envNames(doc.Broker.Env)
	p.Run.Env.Keep = c.envPatterns("run.env.keep", doc.Run.Env.Keep)
	p.Run.Env.Drop = c.envPatterns("run.env.drop", doc.Run.Env.Drop)
	p.Shims = c.shimNames(&doc.Shims)
	p.Agents = c.agents(&doc.Agents)
	p.Approvers = c.approvers(doc.Approvers)
	if doc.Limits.PIDs < 0 || doc.Limits.PIDs > 0 && doc.Limits.PIDs < MinPIDs {
		c.add(0, "limits.pids must be 0 (no limit) or at least %d: the jail's init needs a few threads", MinPIDs)
	}
	if _, err := p.Limits.MemoryBytes(); err != nil {
		c.add(0, "%v", err)
	}
	if _, err := p.Limits.CPUCores(); err != nil {
		c.add(0, "%v", err)
	}
	if len(c.errs) > 0 {
		sort.SliceStable(c.errs, func(i, j int) bool { return c.errs[i].Line < c.errs[j].Line })
		return nil, c.errs
	}
	return p, nil
}

// decodeDoc decodes the document strictly. Type errors (unknown keys,
// wrong types) are returned with the partly decoded document, so that
// the rest of the file is still checked; syntax errors stop everything.
func decodeDoc(file string, data []byte) (*fileDoc, FileErrors, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var doc fileDoc
	var typeErrs FileErrors
	if err := dec.Decode(&doc); err != nil {
		var te *yaml.TypeError
		switch {
		case errors.Is(err, io.EOF):
			return nil, nil, FileErrors{{File: file, Msg: "empty policy file (it needs at least `version: 1`)"}}
		case !errors.As(err, &te):
			return nil, nil, yamlSyntaxErrors(file, data, err)
		}
		typeErrs = yamlErrors(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, nil, FileErrors{{File: file, Line: extra.Line, Msg: "only one YAML document is allowed"}}
	}
	return &doc, typeErrs, nil
}

// collector gathers every problem of one file.
type collector struct {
	file string
	errs FileErrors
}

func (c *collector) add(line int, format string, args ...any) {
	c.errs = append(c.errs, &FileError{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (c *collector) version(n *yaml.Node) int {
	if n.Kind == 0 {
		c.add(1, "missing `version: %d`", Version)
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v != Version {
		c.add(n.Line, "unsupported version %q (this sandbox reads version %d)", n.Value, Version)
	}
	return v
}

func (c *collector) duration(key string, n *yaml.Node) time.Duration {
	if n.Kind == 0 {
		return 0
	}
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d < 0 {
		c.add(n.Line, "%s: %q is not a duration such as 10m or 1h", key, n.Value)
	}
	return d
}

func (c *collector) envNames(nodes []yaml.Node) []string {
	var out []string
	for i := range nodes {
		n := &nodes[i]
		if n.Kind != yaml.ScalarNode || !isEnvName(n.Value) {
			c.add(n.Line, "broker.env: %q is not an environment variable name", n.Value)
			continue
		}
		out = append(out, n.Value)
	}
	return out
}

// envPatterns reads a list of variable names with '*' wildcards.
func (c *collector) envPatterns(key string, nodes []yaml.Node) []string {
	var out []string
	for i := range nodes {
		n := &nodes[i]
		if n.Kind != yaml.ScalarNode || !isEnvName(strings.ReplaceAll(n.Value, "*", "A")) {
			c.add(n.Line, "%s: %q is not an environment variable name (letters, digits, _ and * for any run of them)", key, n.Value)
			continue
		}
		out = append(out, n.Value)
	}
	return out
}

func isEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	return strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

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

// ValidShimName reports whether name can be a run-mode shim: a plain
// command name of letters, digits, '.', '_', '+' and '-' (not starting
// with '.' or '-'), at most 64 bytes, and never the sandbox binary's own
// name.
func ValidShimName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' || name[0] == '-' || strings.HasPrefix(name, "sandbox") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._+-", c) >= 0) {
			return false
		}
	}
	return true
}

// shimNames decodes `shims: [NAME, ...]`, the tools run mode shims
// instead of the default list (an empty list shims nothing). Absent, it
// returns nil.
func (c *collector) shimNames(n *yaml.Node) []string {
	if n.Kind == 0 {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.add(n.Line, "shims: a list of command names, such as [git, npm, curl]")
		return nil
	}
	out := []string{}
	for _, item := range n.Content {
		switch {
		case item.Kind != yaml.ScalarNode || item.Tag != "!!str" || !ValidShimName(item.Value):
			c.add(item.Line, "shims: %q is not a command name (letters, digits, '.', '_', '+', '-'; not sandbox itself)", item.Value)
		case slices.Contains(out, item.Value):
			c.add(item.Line, "shims: %q is listed twice", item.Value)
		default:
			out = append(out, item.Value)
		}
	}
	return out
}

// The patterns and names of yaml.v3's messages, built the first time a
// policy file has an error: compiling them at init cost every sandbox
// process (every hook and shim call) about 35 us and 19 KB.
var (
	yamlLineRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })
	unknownKeyRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type \S+$`) })
	goTypeNamesRE = sync.OnceValue(func() *strings.Replacer {
		return strings.NewReplacer(
			"policy.triggerDoc", "a mapping of allow/escalate/deny lists",
			"policy.ciRulesDoc", "a mapping of approve/deny lists",
			"policy.ciDoc", "a mapping of triggers",
			"policy.fileDoc", "a policy mapping",
			"policy.Limits", "a mapping (memory, pids, cpu)",
			"policy.brokerDoc", "a mapping (env)",
			"policy.hookDoc", "a mapping (wait)",
			"policy.runDoc", "a mapping (env)",
			"policy.runEnvDoc", "a mapping (keep, drop)",
			"[]yaml.Node", "a list",
		)
	})
)

// yamlErrors turns a yaml.v3 error into FileErrors with line numbers.
func yamlErrors(file string, err error) FileErrors {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var out FileErrors
		for _, e := range te.Errors {
			out = append(out, yamlLine(file, e))
		}
		return out
	}
	return FileErrors{yamlLine(file, err.Error())}
}

// yamlSyntaxErrors is yamlErrors for a file that did not parse: the error
// is put at the line yaml.v3 could not read (syntaxLine), not at the
// start of the block around it.
func yamlSyntaxErrors(file string, data []byte, err error) FileErrors {
	fe := yamlLine(file, err.Error())
	n := syntaxLine(data)
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return FileErrors{fe}
	}
	if n != fe.Line {
		fe.Line, fe.Msg = n, syntaxHint(lines[n-1], fe.Msg)
	} else if unclosedQuote(lines[n-1]) {
		fe.Msg = syntaxHint(lines[n-1], fe.Msg)
	}
	return FileErrors{fe}
}

func yamlLine(file, msg string) *FileError {
	msg = strings.TrimPrefix(msg, "yaml: ")
	fe := &FileError{File: file, Msg: msg}
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		fe.Line, _ = strconv.Atoi(m[1])
		fe.Msg = m[2]
	}
	if m := unknownKeyRE().FindStringSubmatch(fe.Msg); m != nil {
		fe.Msg = "unknown key " + strconv.Quote(m[1])
	}
	fe.Msg = goTypeNamesRE().Replace(fe.Msg)
	return fe
}

// syntaxLine finds the line a YAML syntax error is really on. yaml.v3
// reports the line where the enclosing block began (its "context"), not
// the line it could not read: a bad indent or an unclosed quote at line
// 205 of the default policy is reported at line 65, where the allow list
// starts. The line at fault is the one after the longest prefix of the
// file that still parses: every prefix that includes the bad line fails,
// and scanning from the end lets a valid string spanning several lines
// earlier in the file (whose own prefixes fail) be passed over. It runs
// only for a file that failed to parse; 0 when no prefix parses.
func syntaxLine(data []byte) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	end := len(data)
	for k := len(lines) - 1; k > 0; k-- {
		end -= len(lines[k])
		var n yaml.Node
		if yaml.Unmarshal(data[:end], &n) == nil {
			return k + 1
		}
	}
	return 1
}

// syntaxHint says in plain words what is wrong with line, which yaml.v3
// could not read: an unclosed quote or an indent that fits no block.
func syntaxHint(line, yamlMsg string) string {
	if unclosedQuote(line) {
		return "unclosed quote (a string opened on this line is not closed on it)"
	}
	switch {
	case strings.Contains(yamlMsg, "indicator"), strings.Contains(yamlMsg, "expected key"),
		strings.Contains(yamlMsg, "mapping values are not allowed"), strings.Contains(yamlMsg, "block"):
		return "bad indentation: this line does not line up with the list or mapping it belongs to (" + yamlMsg + ")"
	}
	return yamlMsg
}

// unclosedQuote reports whether line opens a quoted string it does not
// close (a comment after the value does not count).
func unclosedQuote(line string) bool {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return false
		case quote == 0 && (c == '"' || c == '\'') && quoteOpens(line, i):
			quote = c
		case quote == '"' && c == '\\':
			i++
		case quote == '\'' && c == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++
		case quote != 0 && c == quote:
			quote = 0
		}
	}
	return quote != 0
}

// quoteOpens reports whether the quote at line[i] starts a quoted
// scalar: it comes first in its value (after indentation, "- ", ": ", "[",
// "{" or ","), not inside a plain word such as don't.
func quoteOpens(line string, i int) bool {
	before := strings.TrimRight(line[:i], " \t")
	return before == "" || strings.HasSuffix(before, "-") || strings.HasSuffix(before, ":") ||
		strings.HasSuffix(before, "[") || strings.HasSuffix(before, "{") || strings.HasSuffix(before, ",")
}

// agents checks the agents: section: the webhook is an http(s) URL.
func (c *collector) agents(d *agentsDoc) Agents {
	a := Agents{Setup: strings.TrimSpace(d.Setup), Test: strings.TrimSpace(d.Test)}
	if n := &d.Notify.Webhook; n.Kind != 0 {
		u, err := url.Parse(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			c.add(n.Line, "agents.notify.webhook: %q is not an http(s) URL", n.Value)
		}
		a.Webhook = n.Value
	}
	return a
}
