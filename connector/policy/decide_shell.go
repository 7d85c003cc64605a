package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/shell"
)

// Bounds on shell input checked before the analyzer sees it.
const (
	maxScriptBytes = 1 << 20
	maxArgvWords   = 10000
)

// Shell decides a bash script run in cwd ("" is the project root): every
// simple command, redirection, file and destination it would reach.
func (e *Engine) Shell(script, cwd string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, Shell, script)
	switch {
	case len(script) > maxScriptBytes:
		return single(Shell, clipText(script, maxSubject), Escalate, ruleInput, "script too large to classify")
	}
	return e.decideEffects(shell.Analyze(script, e.shellOpts), cwd)
}

// Argv decides a command run directly, without a shell (no re-joining:
// each element is one word).
func (e *Engine) Argv(argv []string, cwd string) (d Decision) {
	defer e.stampTo(&d)
	subject := quoteArgv(literalWords(argv, 16), len(argv) > 16)
	defer e.recoverTo(&d, Shell, subject)
	size := 0
	for _, a := range argv {
		size += len(a)
	}
	switch {
	case len(argv) == 0:
		return single(Shell, "", Escalate, ruleInput, "empty command")
	case len(argv) > maxArgvWords || size > maxScriptBytes:
		return single(Shell, subject, Escalate, ruleInput, "command too large to classify")
	}
	return e.decideEffects(shell.AnalyzeArgv(argv, e.shellOpts), cwd)
}

func literalWords(argv []string, n int) []shell.Word {
	out := make([]shell.Word, 0, min(len(argv), n))
	for _, a := range argv[:min(len(argv), n)] {
		out = append(out, shell.Word{Text: a})
	}
	return out
}

// decideEffects decides every effect the analyzer found.
func (e *Engine) decideEffects(effs []shell.Effect, cwd string) Decision {
	if len(effs) == 0 {
		return single(Shell, "", Escalate, ruleNothing, "the analyzer found nothing this would run; a human decides")
	}
	dir, err := e.workDir(cwd)
	if err != nil {
		return single(Shell, cwd, Escalate, rulePath, "working directory: "+err.Error())
	}
	sc, parts := e.newScript(effs, dir)
	for i := range effs {
		sc.siblings = siblings(effs, i)
		parts = e.effectParts(parts, &effs[i], sc)
	}
	return combine(parts)
}

func (e *Engine) effectParts(parts []Part, ef *shell.Effect, sc *scriptCtx) []Part {
	switch ef.Kind {
	case shell.Exec:
		parts = append(parts, e.execPart(ef, sc))
		parts = e.gitRepoParts(parts, ef, sc)
		return e.wordGuard(parts, ef, sc)
	case shell.Write:
		return e.scriptPathParts(parts, Write, ef, sc)
	case shell.Read:
		return e.scriptPathParts(parts, Read, ef, sc)
	case shell.Network:
		return append(parts, e.scriptHostPart(ef))
	case shell.Protected:
		return append(parts, Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Deny, Rule: ruleSelf,
			Reason: joinReason(ef.Reason, reasonSelf), Effect: "protected " + clipText(effectSubject(ef), maxSubject)})
	case shell.Opaque:
		if sc.contained {
			return append(parts, containedPart(ef))
		}
		return append(parts, Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Escalate, Rule: ruleOpaque,
			Reason: joinReason(ef.Reason, "cannot be classified statically"), Effect: "opaque " + clipText(effectSubject(ef), maxSubject)})
	}
	return append(parts, Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Escalate, Rule: ruleOpaque,
		Reason: "unknown kind of effect " + ef.Kind.String()})
}

// execPart decides one simple command.
func (e *Engine) execPart(ef *shell.Effect, sc *scriptCtx) Part {
	subject := quoteArgv(ef.Args, ef.OpenEnded)
	if len(ef.Args) == 0 || ef.Args[0].Dynamic {
		return Part{Trigger: Shell, Subject: subject, Decision: Escalate, Rule: ruleDynamic,
			Reason: "the command name is not a literal word"}
	}
	name := ef.Args[0].Text
	lists := func(t *tierRules, may bool) [][]*boundRule {
		if may {
			return t.forMay(name)
		}
		return t.forAllow(name)
	}
	m := func(r *boundRule, may bool) matchKind {
		return r.matchShell(may, func(p *argvPattern) matchKind {
			if may {
				return p.matchMay(ef.Args, ef.OpenEnded)
			}
			return p.matchAllow(ef.Args, ef.OpenEnded, sc.afterCD)
		})
	}
	v := evaluate(e.index(Shell), lists, m)
	if ef.Understood && v.tier == Escalate && v.noRule {
		if why := e.movesTree(ef, sc); why != "" {
			v.reason += "; its effects cannot decide it: " + why
		} else {
			v = verdict{tier: Allow, rule: ruleEffects, reason: effectsReason(sc.siblings)}
		}
	}
	sc.contained = e.jailed && v.tier == Allow && v.jailed
	p := v.part(Shell, subject)
	if p.Decision == Escalate && v.soft {
		p.Propose = proposeArgv(*ef)
	}
	return p
}

func effectSubject(ef *shell.Effect) string {
	switch {
	case ef.Path != "":
		return ef.Path
	case ef.Host != "":
		return ef.Host
	case len(ef.Args) > 0:
		return quoteArgv(ef.Args, ef.OpenEnded)
	}
	return clipText(ef.Source, maxSubject)
}

func joinReason(specific, general string) string {
	if specific == "" {
		return general
	}
	return specific + ": " + general
}

// maxCDs bounds the directory changes followed in one script: the
// candidate working directories are every ordered subset of them.
const maxCDs = 6

// scriptCtx is what a script's decision needs to know about where its
// relative paths point.
type scriptCtx struct {
	cwd       string         // resolved starting directory
	dirs      []string       // every directory the script may be in (cwd first)
	cdUnknown bool           // some cd goes where nothing static can tell
	afterCD   bool           // the script changes directory at all
	siblings  []shell.Effect // the effects that follow the Exec being decided, up to the next Exec
	contained bool           // that Exec is allowed by a jailed rule on a jailed engine (containedPart)
}

// workDir resolves the working directory ("" is the project root).
func (e *Engine) workDir(cwd string) (string, error) {
	if cwd == "" {
		return e.root, nil
	}
	return e.res.resolve(cwd, e.root)
}

// newScript finds the script's cd/pushd/popd commands and the candidate
// directories they lead to. Since control flow (`cd a || cd b`) can skip
// any of them, every ordered subset is a candidate. A cd that leaves the
// project, or goes somewhere unknown ($VAR, -, popd), escalates: what
// follows it acts on files nobody looked at.
func (e *Engine) newScript(effs []shell.Effect, cwd string) (*scriptCtx, []Part) {
	sc := &scriptCtx{cwd: cwd, dirs: []string{cwd}}
	var targets []string
	var parts []Part
	for i := range effs {
		ef := &effs[i]
		if ef.Kind != shell.Exec || len(ef.Args) == 0 || ef.Args[0].Dynamic || !isCD(ef.Args[0].Text) {
			continue
		}
		sc.afterCD = true
		t, ok := cdTarget(ef.Args)
		if !ok {
			sc.cdUnknown = true
			parts = append(parts, Part{Trigger: Shell, Subject: quoteArgv(ef.Args, false), Decision: Escalate,
				Rule: ruleCD, Reason: "changes to a directory that is not known statically"})
			continue
		}
		targets = append(targets, t)
	}
	if len(targets) > maxCDs {
		sc.cdUnknown = true
		return sc, append(parts, Part{Trigger: Shell, Subject: "cd", Decision: Escalate, Rule: ruleCD,
			Reason: fmt.Sprintf("more than %d directory changes", maxCDs)})
	}
	return sc, append(parts, e.cdCandidates(sc, targets)...)
}

func (e *Engine) cdCandidates(sc *scriptCtx, targets []string) []Part {
	var parts []Part
	rootFold := foldSegments(e.rootSegs)
	for mask := 1; mask < 1<<len(targets); mask++ {
		dir := sc.cwd
		for i, t := range targets {
			if mask&(1<<i) == 0 {
				continue
			}
			next, err := e.res.resolve(t, dir)
			if err != nil {
				sc.cdUnknown = true
				return append(parts, Part{Trigger: Shell, Subject: "cd " + quoteWord(t), Decision: Escalate,
					Rule: ruleCD, Reason: err.Error()})
			}
			dir = next
		}
		if contains(sc.dirs, dir) {
			continue
		}
		sc.dirs = append(sc.dirs, dir)
		if !within(foldSegments(pathSegments(dir)), rootFold) {
			parts = append(parts, Part{Trigger: Shell, Subject: "cd " + quoteWord(dir), Decision: Escalate,
				Rule: ruleCD, Reason: "may change to a directory outside the project"})
		}
	}
	return parts
}

func isCD(name string) bool {
	switch name {
	case "cd", "pushd", "popd", "chdir":
		return true
	}
	return false
}

// cdTarget returns where cd/pushd goes, or false when that is unknown.
func cdTarget(args []shell.Word) (string, bool) {
	name, rest := args[0].Text, args[1:]
	if name == "popd" {
		return "", false
	}
	for len(rest) > 0 && !rest[0].Dynamic && strings.HasPrefix(rest[0].Text, "-") && rest[0].Text != "-" {
		done := rest[0].Text == "--"
		rest = rest[1:]
		if done {
			break
		}
	}
	switch {
	case len(rest) == 0 && name == "pushd":
		return "", false
	case len(rest) == 0:
		return "~", true
	case rest[0].Dynamic, rest[0].Text == "-":
		return "", false
	case name == "pushd" && (strings.HasPrefix(rest[0].Text, "+") || strings.HasPrefix(rest[0].Text, "-")):
		return "", false
	case rest[0].Text == "":
		return ".", true
	}
	return rest[0].Text, true
}

// isRelative reports a path that depends on the working directory.
func isRelative(p string) bool {
	return !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, `\`) &&
		!strings.HasPrefix(p, "~") && !(len(p) >= 2 && p[1] == ':')
}

// maxEffectsNamed bounds the effects an "effects" reason names.
const maxEffectsNamed = 4

// siblings returns the effects that follow effs[i] up to the next Exec:
// for an Exec, what the analyzer found that command does.
func siblings(effs []shell.Effect, i int) []shell.Effect {
	if effs[i].Kind != shell.Exec {
		return nil
	}
	j := i + 1
	for j < len(effs) && effs[j].Kind != shell.Exec {
		j++
	}
	return effs[i+1 : j]
}

// effectsReason is the reason of an understood command that no shell rule
// names: the effects that decide it instead, each a part of its own.
func effectsReason(effs []shell.Effect) string {
	if len(effs) == 0 {
		return "its effects are allowed: it writes, reads and reaches nothing"
	}
	var b strings.Builder
	b.WriteString("its effects are allowed: ")
	for i, ef := range effs {
		if i == maxEffectsNamed {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(effectText(&ef))
	}
	return b.String()
}

// effectText names one effect as Part.Effect does.
func effectText(ef *shell.Effect) string {
	switch ef.Kind {
	case shell.Network:
		return "host " + clipText(ef.Host, maxSubject)
	case shell.Exec:
		return "exec " + clipText(effectSubject(ef), maxSubject)
	}
	return ef.Kind.String() + " " + clipText(effectSubject(ef), maxSubject)
}

// movesTree says why an understood command cannot be decided on its
// effects: it moves a directory (mv DIR DEST), so names the write rules
// guard (.github/workflows, .claude, .git/hooks) could land under DEST
// without any write effect spelling them.
func (e *Engine) movesTree(ex *shell.Effect, sc *scriptCtx) string {
	if baseName(ex.Args[0].Text) != "mv" {
		return ""
	}
	for i := range sc.siblings {
		ef := &sc.siblings[i]
		if ef.Kind != shell.Write || !ef.Recursive {
			continue
		}
		if ef.Dynamic {
			return "it moves " + ef.Path + ", which may be a directory"
		}
		abs, err := e.res.resolve(ef.Path, sc.cwd)
		if err != nil {
			return err.Error()
		}
		if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
			return "it moves the directory " + abs + ", and what lands under its destination is not checked"
		}
	}
	return ""
}

// reasonGitRepo explains why git in another repository escalates: git
// reads that repository's config (core.fsmonitor, core.pager, aliases,
// hooks) and runs the programs it names, even for git status.
const reasonGitRepo = "git reads that repository's configuration and hooks, which can run programs even for git status"

// gitGlobalSeparate are git's global options whose value is the next word.
var gitGlobalSeparate = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true,
	"--namespace": true, "--super-prefix": true, "--config-env": true, "--attr-source": true}

// gitRepoParts escalates a git command that runs in a repository other
// than the project's own: after -C to a directory outside the project, or
// in a repository nested inside it (a directory between the command's
// working directory and the project root holding a .git, directory or
// file). The policy's git rules were written for the project's own
// repository, whose .git the agent may not write.
func (e *Engine) gitRepoParts(parts []Part, ef *shell.Effect, sc *scriptCtx) []Part {
	if len(ef.Args) == 0 || ef.Args[0].Dynamic || baseName(foldName(ef.Args[0].Text)) != "git" {
		return parts
	}
	subject := quoteArgv(ef.Args, ef.OpenEnded)
	chdirs, ok := gitChdirs(ef.Args[1:])
	if !ok {
		return append(parts, Part{Trigger: Shell, Subject: subject, Decision: Escalate, Rule: ruleGit,
			Reason: "git -C to a directory that is not known statically: " + reasonGitRepo})
	}
	rootFold := foldSegments(e.rootSegs)
	for _, start := range sc.dirs {
		dir := start
		for _, c := range chdirs {
			next, err := e.res.resolve(c, dir)
			if err != nil {
				return append(parts, Part{Trigger: Shell, Subject: subject, Decision: Escalate, Rule: ruleGit,
					Reason: "git -C " + c + ": " + err.Error()})
			}
			dir = next
		}
		if !within(foldSegments(pathSegments(dir)), rootFold) {
			return append(parts, Part{Trigger: Shell, Subject: subject, Decision: Escalate, Rule: ruleGit,
				Reason: "git runs in " + dir + ", outside the project: " + reasonGitRepo})
		}
		if nested := e.nestedRepo(dir); nested != "" {
			return append(parts, Part{Trigger: Shell, Subject: subject, Decision: Escalate, Rule: ruleGit,
				Reason: "git runs in the repository nested at " + nested + ": " + reasonGitRepo})
		}
	}
	return parts
}

// gitChdirs returns the -C directories of git's global options, in order;
// false when one is not a literal word.
func gitChdirs(args []shell.Word) ([]string, bool) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			return out, false // (the analyzer escalates these too)
		}
		t := a.Text
		switch {
		case !strings.HasPrefix(t, "-") || t == "--":
			return out, true
		case t == "-C":
			if i+1 >= len(args) || args[i+1].Dynamic {
				return out, false
			}
			out = append(out, args[i+1].Text)
			i++
		case strings.HasPrefix(t, "-C"):
			out = append(out, t[2:])
		case gitGlobalSeparate[t]:
			i++
		}
	}
	return out, true
}

// nestedRepo returns the first directory from dir up to (not including)
// the project root that holds a .git or is a git directory itself, or "".
// git takes a directory with HEAD, objects and refs for a (bare)
// repository and reads its config: the agent can write those files
// anywhere in the project (evil/HEAD, evil/config with diff.external,
// evil/objects/info/alternates pointing at the project's objects), and
// `cd evil && git diff A B` ran the program.
func (e *Engine) nestedRepo(dir string) string {
	rootFold := foldSegments(e.rootSegs)
	for d := dir; ; {
		segs := foldSegments(pathSegments(d))
		if len(segs) <= len(rootFold) || !within(segs, rootFold) {
			return ""
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if looksLikeGitDir(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// looksLikeGitDir reports a directory git could take for a repository of
// its own: it has a HEAD, or both objects and refs (a script can write
// the HEAD before it runs git). Any type counts, links included.
func looksLikeGitDir(d string) bool {
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(d, name))
		return err == nil
	}
	return exists("HEAD") || exists("objects") && exists("refs")
}

// wordGuard denies a command when one of its literal words names a
// .sandbox directory or resolves into the per-user state dir: whatever
// the command does with that word, it must not touch the sandbox's own
// state. (The analyzer reports dynamic words, globs and braces that could
// reach .sandbox as Protected effects; this is the second line.)
func (e *Engine) wordGuard(parts []Part, ef *shell.Effect, sc *scriptCtx) []Part {
	for _, w := range ef.Args {
		if !containsSandbox(w.Text) {
			continue
		}
		for _, c := range wordCandidates(w.Text) {
			if why := e.reaches(c, w.Dynamic, sc); why != "" {
				return append(parts, Part{Trigger: Shell, Subject: quoteArgv(ef.Args, ef.OpenEnded),
					Decision: Deny, Rule: ruleSelf, Reason: why + ": " + reasonSelf})
			}
		}
	}
	return parts
}

// containsSandbox is a cheap filter: every word that can name .sandbox or
// the state dir (.../sandbox) contains "sandbox" in some case.
func containsSandbox(s string) bool {
	if isASCII(s) {
		for i := 0; i+7 <= len(s); i++ {
			if strings.EqualFold(s[i:i+7], "sandbox") {
				return true
			}
		}
		return false
	}
	return strings.Contains(foldName(s), "sandbox")
}

// wordCandidates are the paths a word may name: itself, what follows each
// '=' (--file=X), and what follows a short option (-fX).
func wordCandidates(w string) []string {
	out := []string{w}
	for i := 0; i < len(w); i++ {
		if w[i] == '=' {
			out = append(out, w[i+1:])
		}
	}
	if len(w) > 2 && w[0] == '-' && w[1] != '-' {
		out = append(out, w[2:])
	}
	return out
}

// reaches says why the path c is protected, or "". A dynamic word (in
// its source form) is only checked for a .sandbox name.
func (e *Engine) reaches(c string, dynamic bool, sc *scriptCtx) string {
	named := c
	if segs := pathSegments(filepath.Clean(c)); filepath.IsAbs(c) && len(e.rootSegs) > 0 &&
		within(foldSegments(segs), foldSegments(e.rootSegs)) {
		// a path into the project is judged by its part below the root
		// (an agent's worktree lies inside MAIN's .sandbox/)
		named = strings.Join(segs[len(e.rootSegs):], "/")
	}
	for _, comp := range strings.FieldsFunc(named, func(r rune) bool { return r == '/' || r == '\\' }) {
		if isSandboxName(comp) {
			return "names " + folder.DirName
		}
	}
	if dynamic || len(e.stateSegs) == 0 || c == "" {
		return ""
	}
	dirs := []string{sc.cwd}
	if isRelative(c) {
		dirs = sc.dirs
	}
	for _, d := range dirs {
		abs, err := e.res.resolve(c, d)
		if err == nil && within(foldSegments(pathSegments(abs)), e.stateSegs) {
			return "reaches the per-user state dir"
		}
	}
	return ""
}

// isSandboxName compares a name with .sandbox as a lenient file system
// would: folded, without trailing dots and spaces or a ":stream" suffix.
func isSandboxName(name string) bool {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return strings.TrimRight(foldName(name), ". ") == folder.DirName
}

// ruleContained labels the parts containedPart decides.
const ruleContained = "jail:contained"

// containedPart decides an Opaque effect of a command that a `jailed:
// true` rule allows on the jailed engine: what the analyzer cannot see
// (program text given to an interpreter, a file `source` runs, the
// options a script's variable holds) is the program's own business, and
// the rule says that program may run in the jail whatever it does. The
// jail, not the analyzer, contains it: it writes only the project, reads
// no secret the jail hides, reaches only hosts the proxy allows or asks
// about. So `node -e CODE` is what `node script.js` is there. Without the
// jail the rule does not count, and the Opaque part escalates as always;
// a Protected part (.sandbox named) is denied either way.
func containedPart(ef *shell.Effect) Part {
	return Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Allow, Rule: ruleContained,
		Reason: joinReason(ef.Reason, "contained by the jail: the command's jailed rule allows what it runs"),
		Effect: "opaque " + clipText(effectSubject(ef), maxSubject)}
}

// quoteWord quotes a word so that both a shell and a shell pattern read
// it back as the same single literal word: bare when it is made of safe
// characters, in single quotes otherwise, and as $'...' when it holds
// control, invisible or invalid characters (which patterns cannot spell).
func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	if isSafeWord(s) {
		return s
	}
	if !printableWord(s) {
		return ansiC(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func isSafeWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("_@%+=:,./-", c) >= 0) {
			return false
		}
	}
	return true
}

func printableWord(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' || isIgnorable(r) {
			return false
		}
	}
	return true
}

// ansiC writes s as a bash $'...' string with every unusual byte escaped.
func ansiC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x80 && unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsPrint(r) && !isIgnorable(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// quoteArgv renders a command's words for the human: literal words
// quoted, dynamic words in their source form, "…" when xargs or find
// append more.
func quoteArgv(args []shell.Word, openEnded bool) string {
	var b strings.Builder
	for i, w := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.Dynamic {
			b.WriteString(w.Text)
		} else {
			b.WriteString(quoteWord(w.Text))
		}
	}
	if openEnded {
		b.WriteString(" …")
	}
	return b.String()
}
