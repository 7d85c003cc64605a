package policy

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
