package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// Proposal is what "approve always" offers for one escalated part: the
// exact pattern and, where it is safe, the general pattern a human would
// write (`npm install **`, the host rather than host:port, a directory
// glob for a write). Why says why there is no general pattern, or no
// pattern at all.
type Proposal struct {
	Trigger Trigger `json:"trigger"`
	Subject string  `json:"subject"`
	Exact   string  `json:"exact,omitempty"`
	General string  `json:"general,omitempty"`
	Why     string  `json:"why,omitempty"`
}

// subcommandTools are the commands whose second word names what they do
// (`npm install`, `git push`): their general pattern keeps it.
var subcommandTools = map[string]bool{
	"git": true, "npm": true, "yarn": true, "pnpm": true, "bun": true, "deno": true, "cargo": true,
	"go": true, "pip": true, "pip3": true, "uv": true, "poetry": true, "gem": true, "bundle": true,
	"docker": true, "podman": true, "kubectl": true, "helm": true, "gh": true, "terraform": true,
	"aws": true, "gcloud": true, "az": true, "apt": true, "apt-get": true, "brew": true,
	"dotnet": true, "rustup": true, "systemctl": true, "make": true, "mvn": true, "gradle": true,
}

// Proposals returns one proposal per escalated part of d, in order.
func (e *Engine) Proposals(d Decision) []Proposal {
	var out []Proposal
	for _, p := range d.Parts {
		if p.Decision == Escalate {
			out = append(out, e.Generalize(p))
		}
	}
	return out
}

// Generalize proposes the patterns that could remember the escalated part
// p. The general pattern is offered only when no deny or escalate rule
// (of the policy, built in, or remembered) could match anything it
// matches, except the rule that escalated p when the general pattern
// stays inside that rule's territory: approving `git push origin x` must
// never offer a pattern that also lifts `git ** --exec* **`, and `rm **`
// is not offered while the policy denies `rm -rf / **`.
func (e *Engine) Generalize(p Part) Proposal {
	pr := Proposal{Trigger: p.Trigger, Subject: p.Subject, Exact: p.Propose}
	if why := unliftable(p); why != "" {
		pr.Exact, pr.Why = "", why
		return pr
	}
	if p.Propose == "" {
		pr.Why = "no rule can name it exactly: " + p.Reason
		return pr
	}
	if p.Trigger == Shell && runsSandbox(p.Propose) {
		// `sandbox agents apply-land ...` and its kin act for the human
		// (land, approve, policy): remembered, any of them would act
		// again whenever the agent asked
		pr.Exact, pr.Why = "", "it runs the sandbox binary itself, which acts for the human; approve it once"
		return pr
	}
	ix := e.index(p.Trigger)
	if ix == nil {
		pr.Why = "the policy's rules could not be indexed"
		return pr
	}
	var cands []candidate
	switch p.Trigger {
	case Shell:
		cands = argvCandidates(p.Propose)
	case Write, Read:
		cands = e.pathCandidates(p.Propose)
	case Network:
		cands = hostCandidates(p.Propose)
	}
	var why string
	for _, c := range cands {
		if c.pattern == p.Propose {
			continue
		}
		if w := c.conflict(ix, p.Rule); w != "" {
			if why == "" {
				why = fmt.Sprintf("`%s` would also cover %s", c.pattern, w)
			}
			continue
		}
		pr.General = c.pattern
		return pr
	}
	pr.Why = why
	return pr
}

// runsSandbox reports whether the argv pattern exact runs this tool's own
// binary (by its name: an agent can copy it anywhere).
func runsSandbox(exact string) bool {
	words, err := splitPattern(exact)
	if err != nil || len(words) == 0 {
		return false
	}
	lit, ok := unglob(words[0].glob)
	if !ok {
		return false
	}
	name := strings.ToLower(path.Base(filepath.ToSlash(lit)))
	return strings.TrimSuffix(name, ".exe") == "sandbox"
}

// unliftable says why no remembered allow can lift p's escalation: a
// built-in escalation, or a deny rule that may match.
func unliftable(p Part) string {
	switch {
	case p.Decision == Deny:
		return "denied by " + p.Rule + ": " + p.Reason
	case strings.HasPrefix(p.Reason, "may match a deny rule"):
		return "a deny rule of the policy may match it (" + p.Rule + "); approve it once"
	case strings.HasPrefix(p.Rule, "builtin:") && p.Propose == "":
		return p.Reason
	case strings.HasPrefix(p.Rule, "builtin:"):
		return "escalated by the built-in rule " + p.Rule + " (" + p.Reason + "), which no remembered rule lifts; approve it once"
	}
	return ""
}

// candidate is a general pattern with its territory check.
type candidate struct {
	pattern string
	// conflict names a deny or escalate rule whose territory the pattern
	// reaches ("" when none); decided is the label of the rule that
	// escalated the part.
	conflict func(ix *ruleIndex, decided string) string
}

// argvCandidates are the general shell patterns of the exact pattern
// exact, broadest first: the command (and its subcommand) followed by
// '**', then one more literal word at a time.
func argvCandidates(exact string) []candidate {
	words, err := splitPattern(exact)
	if err != nil || len(words) < 1 {
		return nil
	}
	lits := make([]string, len(words))
	for i, w := range words {
		lit, ok := unglob(w.glob)
		if !ok {
			return nil
		}
		lits[i] = lit
	}
	first := 1
	if subcommandTools[lits[0]] && len(lits) > 1 && plainWord(lits[1]) {
		first = 2
	}
	// The whole argv followed by '**' is offered only for a bare command
	// or subcommand (`npm install`): after real arguments, '**' would
	// append anything (`rm -rf build /`).
	last := len(lits) - 1
	if len(lits) == first {
		last = first
	}
	var out []candidate
	for n := first; n <= last; n++ {
		out = append(out, argvCandidate(lits[:n]))
	}
	return out
}

// argvCandidate is `lits... **`, checked by matching every deny and
// escalate rule against the argv lits followed by a word whose value is
// unknown (the matcher then says whether a rule could match any argv the
// pattern matches).
func argvCandidate(lits []string) candidate {
	quoted := make([]string, len(lits))
	probe := make([]shell.Word, len(lits)+1)
	for i, l := range lits {
		quoted[i] = quoteWord(l)
		probe[i] = shell.Word{Text: l}
	}
	probe[len(lits)] = shell.Word{Dynamic: true}
	pattern := strings.Join(quoted, " ") + " **"
	return candidate{pattern: pattern, conflict: func(ix *ruleIndex, decided string) string {
		for _, t := range []*tierRules{&ix.deny, &ix.escalate} {
			for _, list := range t.forMay(lits[0]) {
				for _, r := range list {
					if builtin(r) {
						continue
					}
					may := r.matchShell(true, func(p *argvPattern) matchKind { return p.matchMay(probe, false) })
					if may == noMatch {
						continue
					}
					within := r.matchShell(false, func(p *argvPattern) matchKind { return p.matchAllow(probe, false, false) })
					if r.label == decided && r.Tier == Escalate && within != noMatch {
						continue // inside the territory of the rule the human overrides
					}
					return ruleName(r)
				}
			}
		}
		return ""
	}}
}

// plainWord is a subcommand-like word: lower-case letters, digits, '-'.
func plainWord(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// unglob turns a glob word of an exact pattern back into its literal
// text; ok is false when the word holds an unescaped wildcard.
func unglob(g string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteByte(g[i])
		case c == '*' || c == '?' || c == '[':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// ruleName is how a conflicting rule is shown.
func ruleName(r *boundRule) string {
	s := fmt.Sprintf("`%s`, which the policy %ss", r.Pattern, tierVerb(r.Tier))
	if strings.HasPrefix(r.label, "builtin:") || strings.HasPrefix(r.label, "remembered:") {
		s = fmt.Sprintf("%s (%s), which %ss", r.Pattern, r.label, tierVerb(r.Tier))
	}
	if r.Reason != "" {
		s += " (" + r.Reason + ")"
	}
	return s
}

func tierVerb(t Tier) string {
	if t == Deny {
		return "denie"
	}
	return "escalate"
}

// builtin reports the built-in rules (self-protection in every
// directory, .git/ in every repository, ...): no remembered allow lifts
// them (evaluate), so a general pattern that reaches them lifts nothing,
// and they do not stop one.
func builtin(r *boundRule) bool { return strings.HasPrefix(r.label, "builtin:") }

// pathCandidates is the directory glob of an exact path pattern: its
// directory and everything below, unless that directory holds the
// project or the home directory (a pattern would then cover all of it).
func (e *Engine) pathCandidates(exact string) []candidate {
	lit, ok := unglob(exact)
	if !ok {
		return nil
	}
	dir := path.Dir(lit)
	segs := pathSegments(dir)
	if len(segs) < 2 || isPrefixSegs(segs, e.rootSegs) || isPrefixSegs(segs, e.homeSegs) {
		return nil
	}
	pattern := escapeGlob(dir) + "/**"
	return []candidate{{pattern: pattern, conflict: func(ix *ruleIndex, decided string) string {
		for _, t := range []*tierRules{&ix.deny, &ix.escalate} {
			for _, r := range t.all {
				if r.path == nil || builtin(r) || !r.path.mayMatchBelow(segs) {
					continue
				}
				if r.label == decided && r.Tier == Escalate && r.path.coversBelow(segs) {
					continue
				}
				return ruleName(r)
			}
		}
		return ""
	}}}
}

// isPrefixSegs reports that a is b or one of its ancestors.
func isPrefixSegs(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if foldName(a[i]) != foldName(b[i]) {
			return false
		}
	}
	return true
}

// mayMatchBelow reports whether the rule could match dir or a path below
// it (case-insensitively, to fail closed): some state of its automaton
// survives dir's names.
func (b *boundPath) mayMatchBelow(dir []string) bool {
	return b.statesAfter(foldSegments(dir), true) != 0
}

// coversBelow reports whether the rule matches every path below dir:
// after dir's names it is in a '**' from which only '**' follow.
func (b *boundPath) coversBelow(dir []string) bool {
	set := b.statesAfter(dir, false)
	for i := range b.segs {
		if set&(1<<i) != 0 && b.restFrom(i) {
			return true
		}
	}
	return false
}

// restFrom reports that segs[i:] are all '**' (and there is at least one).
func (b *boundPath) restFrom(i int) bool {
	for j := i; j < len(b.segs); j++ {
		if b.rest&(1<<j) == 0 {
			return false
		}
	}
	return i < len(b.segs)
}

// statesAfter runs the automaton over dir; a dir shorter than the
// rule's prefix that leads into it keeps the start state (the rule lies
// below dir).
func (b *boundPath) statesAfter(dir []string, fold bool) uint64 {
	prefix, pats := b.prefix, b.segs
	if fold {
		prefix, pats = b.prefixFold, b.segsFold
	}
	n := min(len(dir), len(prefix))
	for i := 0; i < n; i++ {
		if dir[i] != prefix[i] {
			return 0
		}
	}
	set := b.closure(1)
	if len(dir) <= len(prefix) {
		return set
	}
	for _, s := range dir[len(prefix):] {
		if set = b.step(set, pats, s); set == 0 {
			return 0
		}
	}
	return set
}

// hostCandidates is the host on any port, for an exact host:port.
func hostCandidates(exact string) []candidate {
	d, err := parseDest(exact)
	if err != nil || d.port == 0 {
		return nil
	}
	anyPort := d
	anyPort.port = 0
	pattern := anyPort.String()
	if _, err := compileHost(pattern); err != nil {
		return nil
	}
	return []candidate{{pattern: pattern, conflict: func(ix *ruleIndex, decided string) string {
		for _, t := range []*tierRules{&ix.deny, &ix.escalate} {
			for _, r := range t.all {
				if r.host == nil || builtin(r) || !r.host.match(anyPort, true) {
					continue
				}
				if r.label == decided && r.Tier == Escalate && r.host.port == 0 {
					continue
				}
				return ruleName(r)
			}
		}
		return ""
	}}}
}

// ProposePattern proposes the narrowest pattern that an "approve always"
// of subject would remember: for shell, the exact argv (the subject is a
// Part's quoted argv); for write and read, the exact absolute path; for
// network, the exact host:port; for mcp, the exact tool name. It returns
// "" when no pattern can cover exactly that subject. Part.Propose, set by
// the engine on escalated parts, is the better source: it knows which
// words were dynamic.
func ProposePattern(t Trigger, subject string) string {
	r := &Rule{Trigger: t, Tier: Allow}
	switch t {
	case Shell:
		r.Pattern = subject
		if strings.ContainsAny(subject, "$`…") {
			return ""
		}
	case Write, Read:
		p := filepath.ToSlash(subject)
		if !strings.HasPrefix(p, "/") && !isDrivePattern(p) {
			return ""
		}
		r.Pattern = escapeGlob(p)
	case Network, MCP:
		r.Pattern = subject
	}
	if r.compile() != nil {
		return ""
	}
	return r.Pattern
}

// proposeArgv is the exact pattern for a command, or "" when a word is
// dynamic or the command is open-ended (no remembered rule could match
// it exactly).
func proposeArgv(ef shell.Effect) string {
	if ef.OpenEnded || len(ef.Args) == 0 {
		return ""
	}
	words := make([]string, len(ef.Args))
	for i, w := range ef.Args {
		if w.Dynamic || !printableWord(w.Text) {
			return ""
		}
		words[i] = quoteWord(w.Text)
	}
	return strings.Join(words, " ")
}

// escapeGlob escapes the characters that path patterns treat specially.
func escapeGlob(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?[]\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
