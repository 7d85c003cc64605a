package policy

import (
	"fmt"
	"path"
	"sync"
	"time"
)

// boundRule is a rule ready to match: its path pattern bound to the
// project root and home, and the label a Part shows for it.
type boundRule struct {
	*Rule
	label    string     // Part.Rule: the pattern, builtin:NAME or remembered:PATTERN
	path     *boundPath // write and read rules
	toolFold *wildcard  // mcp rules, folded for deny and escalate
}

// tierRules is the rules of one tier of one trigger. Shell rules are also
// indexed by command name so that a decision looks at few rules. A cached
// policy's shell rules (lazyShell in cache.go) stay in deferred until the first
// lookup of their key files them, after the rules already filed there
// (which came first: the remembered denials). all holds the rules added
// at once only: shell decisions never use it.
type tierRules struct {
	all  []*boundRule
	wild []*boundRule // shell rules whose name is a glob

	tier     Tier        // of the rules here
	deferred []shellLine // a cached policy's shell lines (of every tier); read-only
	jailed   bool        // the engine is jailed: deferred jailed lines count

	mu      sync.Mutex
	byName  map[string][]*boundRule // guarded by mu once decisions start
	drained map[string]bool         // keys whose deferred lines are in byName; guarded by mu
}

// ruleIndex is everything that decides one trigger.
type ruleIndex struct {
	deny, escalate, allow tierRules
	remembered            tierRules // remembered allows: only for soft escalations
}

func (t *tierRules) add(r *boundRule, may bool) {
	t.all = append(t.all, r)
	if !r.isShell() {
		return
	}
	key, hasSlash, lit := r.shellName()
	if !lit {
		t.wild = append(t.wild, r)
		return
	}
	if t.byName == nil {
		t.byName = map[string][]*boundRule{}
	}
	k := indexKey(key, hasSlash, may)
	t.byName[k] = append(t.byName[k], r)
}

// indexKey is the key a shell rule with a literal command name is filed
// under: the name itself for allow rules, its folded base name for deny
// and escalate rules (which must catch every spelling of the command).
func indexKey(name string, hasSlash, may bool) string {
	if !may {
		return name
	}
	if name = foldName(name); hasSlash {
		name = baseName(name)
	}
	return name
}

// lookup returns the rules filed under key, first decoding the deferred
// lines of this tier that file under it (one scan of the lines per new
// key: cheaper than filing hundreds of lines a hook never looks up).
// Called with mu held.
func (t *tierRules) lookup(key string) []*boundRule {
	if len(t.deferred) == 0 || t.drained[key] {
		return t.byName[key]
	}
	if t.byName == nil {
		t.byName = map[string][]*boundRule{}
	}
	if t.drained == nil {
		t.drained = map[string]bool{}
	}
	may := t.tier != Allow
	for i := range t.deferred {
		l := &t.deferred[i]
		if l.deferred() && l.tier == t.tier && (t.jailed || !l.jailed) && indexKey(l.name, l.hasSlash, may) == key {
			r := l.decode()
			t.byName[key] = append(t.byName[key], &boundRule{Rule: r, label: r.Pattern})
		}
	}
	t.drained[key] = true
	return t.byName[key]
}

// forAllow returns the shell rules that can allow the command name.
func (t *tierRules) forAllow(name string) [][]*boundRule {
	key := name
	if hasSep(name) {
		key = path.Clean(name)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return [][]*boundRule{t.lookup(key), t.wild}
}

// forMay returns the shell rules that can deny or escalate the name.
func (t *tierRules) forMay(name string) [][]*boundRule {
	f := foldCommand(name)
	b := baseName(f)
	t.mu.Lock()
	defer t.mu.Unlock()
	if b == f {
		return [][]*boundRule{t.lookup(f), t.wild}
	}
	return [][]*boundRule{t.lookup(f), t.lookup(b), t.wild}
}

// lazyIndex is one trigger's index, built the first time a decision
// needs it: a Bash call never looks at the MCP or network rules.
type lazyIndex struct {
	once sync.Once
	ix   *ruleIndex
}

// index returns the rules that decide trigger t.
func (e *Engine) index(t Trigger) *ruleIndex {
	l := e.sets[t]
	if l == nil {
		return nil // bug: not a trigger; the decision recovers into an internal-error escalation
	}
	l.once.Do(func() { l.ix = e.buildIndex(t) })
	return l.ix // nil when a rule did not compile (buildIndex): the same escalation
}

// buildIndex binds t's built-in rules, the policy's rules and the
// remembered decisions, in precedence order within each tier. A rule from
// the cache whose pattern is not compiled yet is compiled here, into a
// copy (the policy's rules are shared and never change); one that does
// not compile (impossible for a signed cache written from a parsed
// policy) leaves the trigger without an index, and every decision of it
// escalates as an internal error (see index).
func (e *Engine) buildIndex(t Trigger) *ruleIndex {
	ix := &ruleIndex{}
	broken := false
	bind := func(r *Rule, label string) *boundRule {
		if !r.compiled() {
			c := *r
			if err := c.compile(); err != nil {
				e.log.Error("bug: cached rule does not compile", "pattern", r.Pattern, "err", err)
				broken = true
			}
			r = &c
		}
		b := &boundRule{Rule: r, label: label}
		if r.path != nil {
			b.path = r.path.bind(e.rootSegs, e.homeSegs)
		}
		if r.tool != nil {
			b.toolFold, _ = compileWildcard(foldName(r.Pattern))
		}
		return b
	}
	for _, b := range e.builtinRules(t, e.homeSegs) {
		ix.tier(b.Tier).add(b, b.Tier != Allow)
	}
	for _, r := range rememberedRules(e.opts.Remembered, t, Deny) {
		ix.deny.add(bind(r, "remembered:"+r.Pattern), true)
	}
	if t == Shell && e.policy.lazy != nil {
		e.addShellLines(ix, e.policy.lazy.lines)
	} else if rs := e.policy.Rules[t]; rs != nil {
		for _, tr := range []struct {
			to   *tierRules
			list []*Rule
		}{{&ix.deny, rs.Deny}, {&ix.escalate, rs.Escalate}, {&ix.allow, rs.Allow}} {
			for _, r := range tr.list {
				if e.counts(r.Jailed) {
					tr.to.add(bind(r, r.Pattern), tr.to != &ix.allow)
				}
			}
		}
	}
	for _, r := range rememberedRules(e.opts.Remembered, t, Allow) {
		ix.remembered.add(bind(r, "remembered:"+r.Pattern), false)
	}
	if broken {
		return nil
	}
	return ix
}

// addShellLines files a cached policy's shell rules in the policy's
// order: decoded ones at once, deferred ones on the first lookup of
// their key. Within a tier the lists of a parsed policy are in file
// order too, so both paths index the same rules in the same order.
func (e *Engine) addShellLines(ix *ruleIndex, lines []shellLine) {
	for _, t := range []Tier{Deny, Escalate, Allow} {
		ix.tier(t).tier, ix.tier(t).deferred, ix.tier(t).jailed = t, lines, e.jailed
	}
	for i := range lines {
		if l := &lines[i]; !l.deferred() && e.counts(l.jailed) {
			ix.tier(l.tier).add(&boundRule{Rule: l.rule, label: l.rule.Pattern}, l.tier != Allow)
		}
	}
}

func (ix *ruleIndex) tier(t Tier) *tierRules {
	switch t {
	case Deny:
		return &ix.deny
	case Escalate:
		return &ix.escalate
	}
	return &ix.allow
}

func rememberedRules(rem []Remembered, t Trigger, tier Tier) []*Rule {
	var out []*Rule
	for i := range rem {
		if rem[i].Tier != tier {
			continue
		}
		if r, err := rem[i].rule(); err == nil && r.Trigger == t {
			out = append(out, r)
		}
	}
	return out
}

// Labels of the built-in rules and checks, as Part.Rule shows them.
const (
	ruleSelf     = "builtin:self-protection"
	ruleMetadata = "builtin:metadata"
	ruleDevices  = "builtin:devices"
	ruleDefault  = "default"
	ruleOpaque   = "builtin:opaque"
	ruleDynamic  = "builtin:dynamic"
	rulePath     = "builtin:path"
	ruleHost     = "builtin:host"
	ruleCD       = "builtin:cd"
	ruleInternal = "builtin:internal-error"
	ruleInput    = "builtin:input"
	ruleNothing  = "builtin:nothing-to-run"
	ruleGit      = "builtin:git"
	ruleEffects  = "effects"
	// ruleJailLoopback allows, on the jailed engine, a script's connection
	// to the loopback that no rule names: the jail's own.
	ruleJailLoopback = "jail-loopback"
	// ruleJailTmp allows, on the jailed engine, a write to the temp dirs
	// that no rule names.
	ruleJailTmp = "jail-tmp"
)

const (
	reasonSelf = "the sandbox's own state (.sandbox/ and the per-user state dir) is out of the agent's reach"
	reasonMeta = "cloud metadata services hand out the machine's credentials"
	reasonGit  = "git runs programs named in a repository's files (config, hooks, commondir, alternates, a .git file pointing elsewhere) on its next command, even git status"
)

// metadataHosts are the cloud instance metadata endpoints.
var metadataHosts = []string{
	"169.254.169.254", "169.254.170.2", "169.254.170.23", "fd00:ec2::254", "fd00:ec2::23",
	"100.100.100.200", "192.0.0.192",
	"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal",
}

// devicePaths are always fine to write or read: they are not files.
var devicePaths = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/stdin": true, "/dev/tty": true,
}

// builtinRules are injected on every load, whatever policy.yaml says:
// writes to any .sandbox/ and to the per-user state dir, reads of the
// state dir, and the cloud metadata endpoints are denied.
func (e *Engine) builtinRules(only Trigger, home []string) []*boundRule {
	var out []*boundRule
	addTier := func(t Trigger, tier Tier, pattern, label, reason string) {
		if t != only {
			return
		}
		r := &Rule{Trigger: t, Tier: tier, Pattern: pattern, Reason: reason}
		if err := r.compile(); err != nil {
			e.log.Error("bug: built-in rule does not compile", "pattern", pattern, "err", err)
			return
		}
		b := &boundRule{Rule: r, label: label}
		if r.path != nil {
			b.path = r.path.bind(e.rootSegs, home)
		}
		out = append(out, b)
	}
	add := func(t Trigger, pattern, label, reason string) { addTier(t, Deny, pattern, label, reason) }
	add(Write, "/**/.sandbox/", ruleSelf, reasonSelf)
	if n := len(out); n > 0 && out[n-1].path != nil {
		// inside the project only what lies below its root counts: an
		// agent spawned by `sandbox agents` works in MAIN/.sandbox/
		// worktrees/NAME, whose own files are its to write (MAIN's
		// .sandbox/ and the other worktrees stay out of its reach, as
		// its own .sandbox/ does)
		out[n-1].path.below, out[n-1].path.belowFold = e.rootSegs, foldSegments(e.rootSegs)
	}
	add(Write, ".sandbox/", ruleSelf, reasonSelf)
	// Every .git, directory or file, anywhere: a human decides (the
	// approval is a write like any other), and no policy rule, remembered
	// decision or CI rule makes it unattended. Deny would be simpler but
	// leaves the human no way to let the agent edit .git/info/exclude.
	addTier(Write, Escalate, "/**/.git/", ruleGit, reasonGit)
	addTier(Write, Escalate, ".git/", ruleGit, reasonGit)
	for _, h := range metadataHosts {
		add(Network, h, ruleMetadata, reasonMeta)
	}
	if len(e.stateSegs) > 0 {
		for _, t := range []Trigger{Write, Read} {
			if t != only {
				continue
			}
			r := &Rule{Trigger: t, Tier: Deny, Pattern: "(per-user state dir)/**", Reason: reasonSelf}
			out = append(out, &boundRule{Rule: r, label: ruleSelf, path: prefixPath(e.stateSegs)})
		}
	}
	return out
}

// prefixPath matches a directory (given as folded segments) and all below.
func prefixPath(folded []string) *boundPath {
	return &boundPath{prefix: folded, prefixFold: folded, segs: []string{"**"}, segsFold: []string{"**"}, rest: 1}
}

// Remembered is a human's "always allow" or "always deny" for one
// pattern of one trigger in one folder. Entries live in the per-folder
// state dir (which the jail can neither read nor write), each signed with
// the per-user key over the folder root and every field: package
// connector/policy/store keeps them; the engine applies the ones it is
// given (Options.Remembered).
type Remembered struct {
	Trigger Trigger   `json:"trigger"`
	Tier    Tier      `json:"tier"` // Allow or Deny
	Pattern string    `json:"pattern"`
	Reason  string    `json:"reason,omitempty"`
	By      string    `json:"by,omitempty"` // who decided, for the audit
	Created time.Time `json:"created"`
	MAC     string    `json:"mac"`
}

// rule compiles the entry into a rule; the error names what is wrong.
func (r *Remembered) rule() (*Rule, error) {
	if r.Tier != Allow && r.Tier != Deny {
		return nil, fmt.Errorf("remembered decision must be allow or deny, not %v", r.Tier)
	}
	rule := &Rule{Trigger: r.Trigger, Tier: r.Tier, Pattern: r.Pattern, Reason: r.Reason}
	if err := rule.compile(); err != nil {
		return nil, err
	}
	return rule, nil
}

// Validate reports an entry the engine cannot apply: a tier other than
// allow or deny, or a pattern that does not compile for its trigger.
func (r *Remembered) Validate() error {
	_, err := r.rule()
	return err
}

// ID is a short, stable name for the entry (a prefix of its signature),
// which `sandbox remembered forget` takes.
func (r *Remembered) ID() string {
	if len(r.MAC) < 12 {
		return r.MAC
	}
	return r.MAC[:12]
}
