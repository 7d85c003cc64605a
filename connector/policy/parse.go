package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
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
