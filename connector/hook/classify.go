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
	switch call.Action {
	case Shell:
		ds = append(ds, c.Policy.Shell(call.Script, call.Cwd))
	case Write:
		for _, p := range call.Paths {
			ds = append(ds, c.Policy.Write(p, call.Cwd))
		}
	case Read:
		for _, p := range readTargets(call) {
			ds = append(ds, c.Policy.Read(p, call.Cwd))
		}
	case Fetch:
		ds = append(ds, c.Policy.NetworkURL(call.URL))
	case Search:
		ds = append(ds, c.Policy.WebSearch(call.Query))
	case MCPTool:
		ds = append(ds, c.Policy.MCP(call.Tool))
	}
	if len(ds) == 0 {
		return denial(fmt.Sprintf("sandbox's hook does not know what the tool %q does", call.Tool))
	}
	return merge(ds)
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
