package hook

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// Classify asks the policy about every trigger of a call and returns the
// strictest decision over them. A call with no trigger at all, or of an
// unknown kind, is denied: the hook fails closed.
func (c *Core) Classify(call *Call) policy.Decision {
	var ds []policy.Decision
	pol := c.classifier(call)
	switch call.Action {
	case Shell:
		ds = append(ds, pol.Shell(call.Script, call.Cwd))
	case Write:
		for _, p := range call.Paths {
			ds = append(ds, pol.Write(p, call.Cwd))
		}
	case Read:
		for _, p := range readTargets(call) {
			ds = append(ds, pol.Read(p, call.Cwd))
		}
	case Fetch:
		ds = append(ds, pol.NetworkURL(call.URL))
	case Search:
		ds = append(ds, pol.WebSearch(call.Query))
	case MCPTool:
		ds = append(ds, pol.MCP(call.Tool))
	}
	if len(ds) == 0 {
		return denial(fmt.Sprintf("sandbox's hook does not know what the tool %q does", call.Tool))
	}
	return merge(ds)
}

// jailable is a Classifier that also decides for commands run in the
// project jail: the policy engine.
type jailable interface {
	ForJail() *policy.Engine
}

// classifier is the policy that decides call: the jailed one when the
// call will run in the project jail (the hook runs inside `sandbox run`'s
// jail, or it rewrites this allowed shell call into the jail: a jailer,
// and no defer_allow, which hands the call back to the agent unrewritten),
// else the plain one, whose jailed rules do not count.
func (c *Core) classifier(call *Call) Classifier {
	j, ok := c.Policy.(jailable)
	if !ok || !c.RunsJailed(call) {
		return c.Policy
	}
	return j.ForJail()
}

// RunsJailed reports whether call, if allowed, runs in the project jail.
func (c *Core) RunsJailed(call *Call) bool {
	switch {
	case c.JailState == JailInside:
		return true
	case c.Jail != nil && call.Action == Shell && !c.Options.DeferAllow:
		return true
	}
	return false
}

// denial is a decision that denies for one reason.
func denial(reason string) policy.Decision {
	return policy.Decision{Decision: policy.Deny, Reasons: []string{reason}}
}

// merge combines decisions: the strictest tier, every reason and part.
func merge(ds []policy.Decision) policy.Decision {
	if len(ds) == 1 {
		return ds[0]
	}
	var out policy.Decision
	for _, d := range ds {
		out.Decision = max(out.Decision, d.Decision)
		out.Reasons = append(out.Reasons, d.Reasons...)
		out.Parts = append(out.Parts, d.Parts...)
	}
	return out
}

// readTargets is what a read-like call reads: its paths (the working
// directory when it names none), and for each glob pattern that is
// absolute or climbs with "..", the directory the pattern starts from.
func readTargets(call *Call) []string {
	base := call.Cwd
	targets := append([]string(nil), call.Paths...)
	if len(targets) == 0 {
		targets = []string{base}
	} else {
		base = targets[0]
	}
	for _, pat := range call.Patterns {
		if dir, ok := patternRoot(base, pat); ok {
			targets = append(targets, dir)
		}
	}
	return targets
}

// patternRoot returns the directory a glob pattern starts from when the
// pattern can reach outside base (it is absolute or has a ".." segment).
func patternRoot(base, pat string) (string, bool) {
	slashed := filepath.ToSlash(pat)
	climbs := slashed == ".." || strings.HasPrefix(slashed, "../") ||
		strings.Contains(slashed, "/../") || strings.HasSuffix(slashed, "/..")
	if !filepath.IsAbs(pat) && !climbs && !strings.HasPrefix(slashed, "~") {
		return "", false
	}
	if strings.HasPrefix(slashed, "~") {
		return "/", true // a home directory: classify the widest reach
	}
	segs := strings.Split(slashed, "/")
	var static []string
	for i, seg := range segs {
		if strings.ContainsAny(seg, "*?[{") {
			if slices.Contains(segs[i:], "..") {
				return string(filepath.Separator), true // climbs from an unknown depth
			}
			break
		}
		static = append(static, seg)
	}
	dir := filepath.FromSlash(strings.Join(static, "/"))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	if dir == "" {
		dir = string(filepath.Separator)
	}
	return filepath.Clean(dir), true
}
