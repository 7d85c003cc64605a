package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// Write decides writing the file at p (relative to cwd, "" is the root).
func (e *Engine) Write(p, cwd string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, Write, p)
	return e.fileDecision(Write, p, cwd)
}

// Read decides reading the file at p (relative to cwd, "" is the root).
func (e *Engine) Read(p, cwd string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, Read, p)
	return e.fileDecision(Read, p, cwd)
}

func (e *Engine) fileDecision(t Trigger, p, cwd string) Decision {
	dir, err := e.workDir(cwd)
	if err != nil {
		return single(t, p, Escalate, rulePath, "working directory: "+err.Error())
	}
	return combine([]Part{e.filePart(t, p, dir)})
}

// filePart decides one path relative to the resolved directory dir.
func (e *Engine) filePart(t Trigger, p, dir string) Part {
	if e.isDevice(p) {
		return Part{Trigger: t, Subject: p, Decision: Allow, Rule: ruleDevices, Reason: "a device, not a file"}
	}
	abs, err := e.res.resolve(p, dir)
	if err != nil {
		return Part{Trigger: t, Subject: p, Decision: Escalate, Rule: rulePath, Reason: err.Error()}
	}
	part := e.pathVerdict(t, abs).part(t, abs)
	if e.jailed && t == Write && part.Decision == Escalate && part.Rule == ruleDefault && inTempDir(abs) &&
		!isPrefixSegs(e.homeSegs, pathSegments(abs)) {
		// No rule names it, and the jail lets its commands write the
		// temp dirs (private ones in run mode, the host's /tmp minus
		// its sockets in connector mode). abs is resolved: a link there
		// into the home is decided where it leads.
		part.Decision, part.Rule, part.Reason = Allow, ruleJailTmp, "a temp dir, which the jail lets its commands write"
		return part
	}
	if part.Decision == Escalate {
		part.Propose = ProposePattern(t, abs)
	}
	return part
}

// inTempDir reports a resolved path below /tmp or /var/tmp.
func inTempDir(abs string) bool {
	for _, dir := range []string{"/tmp/", "/var/tmp/"} {
		if strings.HasPrefix(abs, dir) && len(abs) > len(dir) {
			return true
		}
	}
	return false
}

// isDevice reports a path that names a device, not a file: /dev/null and
// friends, and on Windows the null device (NUL, NUL:).
func (e *Engine) isDevice(p string) bool {
	return devicePaths[p] || (e.res.windows && isWinNul(p))
}

func (e *Engine) pathVerdict(t Trigger, abs string) verdict {
	segs := pathSegments(abs)
	folded := foldSegments(segs)
	m := func(r *boundRule, may bool) matchKind {
		if r.path != nil && r.path.match(segs, folded, may || e.foldAllow) {
			return matchExact
		}
		return noMatch
	}
	return evaluate(e.index(t), allRules, m)
}

// scriptPathParts decides a file a script writes or reads. The analyzer
// gives paths relative to the directory the script starts in (it applies
// the script's cd commands, and marks a path dynamic when a cd makes its
// directory unknown).
func (e *Engine) scriptPathParts(parts []Part, t Trigger, ef *shell.Effect, sc *scriptCtx) []Part {
	switch {
	case ef.Dynamic && isPlainGlob(ef.Path):
		return e.globParts(parts, t, ef, sc)
	case ef.Dynamic:
		return append(parts, Part{Trigger: t, Subject: ef.Path, Decision: Escalate, Rule: ruleDynamic,
			Reason: joinReason(ef.Reason, "the path is not known statically")})
	case sc.cdUnknown && isRelative(ef.Path) && !e.isDevice(ef.Path):
		return append(parts, Part{Trigger: t, Subject: ef.Path, Decision: Escalate, Rule: ruleCD,
			Reason: "a relative path after a change to an unknown directory"})
	}
	parts = append(parts, e.filePart(t, ef.Path, sc.cwd))
	if ef.Recursive {
		parts = e.treeParts(parts, ef.Path, sc.cwd, treeOf(t, ef))
	}
	return parts
}

// globParts decides each file a glob matches now, as the shell will
// expand it; without a match the shell passes the word itself.
func (e *Engine) globParts(parts []Part, t Trigger, ef *shell.Effect, sc *scriptCtx) []Part {
	if sc.cdUnknown && isRelative(ef.Path) {
		return append(parts, Part{Trigger: t, Subject: ef.Path, Decision: Escalate, Rule: ruleCD,
			Reason: "a relative path after a change to an unknown directory"})
	}
	matches, err := e.expandGlob(ef.Path, sc.cwd)
	if err != nil {
		return append(parts, Part{Trigger: t, Subject: ef.Path, Decision: Escalate, Rule: ruleDynamic,
			Reason: joinReason(ef.Reason, err.Error())})
	}
	if len(matches) == 0 {
		return append(parts, e.filePart(t, ef.Path, sc.cwd))
	}
	for _, m := range matches {
		parts = append(parts, e.filePart(t, m, sc.cwd))
		if ef.Recursive {
			parts = e.treeParts(parts, m, sc.cwd, treeOf(t, ef))
		}
	}
	return parts
}

// treeOf is how the effect's tool goes through a tree: a recursive write
// (rm -r, chmod -R, a directory mv moves) never follows the links in it.
func treeOf(t Trigger, ef *shell.Effect) treeRead {
	if t == Write {
		return treeRead{write: true}
	}
	return treeRead{skipHidden: ef.SkipsHidden, follow: ef.FollowsLinks}
}

// maxTreeEntries bounds the names looked at under a directory that a
// command reads whole (grep -r, rg, diff -r). A project with its
// dependencies vendored holds some tens of thousands of files; listing
// 100,000 names takes well under 100 ms. Beyond that the read escalates.
const maxTreeEntries = 100_000

var errTreeTooLarge = errors.New("too many files under the directory to check for protected ones")

// treeRead is how a tool reads a tree: whether it leaves names starting
// with a dot out (rg) and whether it follows the links it meets (grep -R,
// diff; grep -r and rg do not).
type treeRead struct {
	skipHidden, follow bool
	// write: the tool writes the tree (rm -r, chmod -R, mv of a
	// directory), so the write rules decide, not the read rules.
	write bool
}

func (h treeRead) trigger() Trigger {
	if h.write {
		return Write
	}
	return Read
}

func (h treeRead) verb() string {
	if h.write {
		return "writes"
	}
	return "reads"
}

// treeParts adds, for a command that reads the tree at p (relative to
// dir) whole, the part of the strictest protected file under it.
func (e *Engine) treeParts(parts []Part, p, dir string, how treeRead) []Part {
	if e.isDevice(p) {
		return parts
	}
	abs, err := e.res.resolve(p, dir)
	if err != nil {
		return parts // the read of p itself escalated
	}
	if part, ok := e.treePart(abs, how); ok {
		parts = append(parts, part)
	}
	return parts
}

// treePart decides a recursive read of the directory at abs (already
// decided as a read itself): reading every file under it reads each file
// that a deny or escalate read rule protects there, so the read takes the
// strictest of those rules. Rules anchored below abs are checked by the
// names they spell (~/.ssh under ~); rules that can match anywhere
// (/**/.env*) by listing the tree. A link in the tree that leads out of it
// is checked as a read of its target when the tool follows links.
//
// how says which names the tool leaves out and whether it follows links.
func (e *Engine) treePart(abs string, how treeRead) (Part, bool) {
	ix := e.index(how.trigger())
	if ix == nil {
		return Part{Trigger: how.trigger(), Subject: abs, Decision: Escalate, Rule: ruleInternal,
			Reason: "the " + string(how.trigger()) + " rules could not be built"}, true
	}
	segs := foldSegments(pathSegments(abs))
	var walk []*boundRule
	var direct *boundRule // the first rule with a hit found by name (deny rules first)
	var directHit string
	for _, tier := range []*tierRules{&ix.deny, &ix.escalate} {
		for _, r := range tier.all {
			if r.path == nil {
				continue
			}
			hit, needWalk := r.path.under(abs, segs)
			if hit != "" && !(how.skipHidden && hiddenBelow(abs, hit)) && direct == nil {
				direct, directHit = r, hit
			}
			if needWalk && r.Tier == Deny || needWalk && direct == nil {
				walk = append(walk, r)
			}
		}
	}
	if direct != nil && direct.Tier == Deny || len(walk) == 0 {
		if direct == nil {
			return Part{}, false
		}
		return treeRulePart(direct, abs, directHit, how), true
	}
	r, hit, err := e.walkTree(abs, walk, how)
	switch {
	case err != nil:
		return Part{Trigger: how.trigger(), Subject: abs, Decision: Escalate, Rule: rulePath,
			Reason: how.verb() + " the whole directory: " + err.Error()}, true
	case r != nil && (direct == nil || r.Tier > direct.Tier):
		return treeRulePart(r, abs, hit, how), true
	case direct != nil:
		return treeRulePart(direct, abs, directHit, how), true
	}
	return Part{}, false
}

func treeRulePart(r *boundRule, dir, hit string, how treeRead) Part {
	v := ruleVerdict(r, matchExact)
	v.soft = false
	p := v.part(how.trigger(), dir)
	p.Reason = how.verb() + " the whole directory, including " + hit + ": " + p.Reason
	return p
}

// under reports what a read of the tree at abs (folded segments segs) may
// reach of this pattern: hit is an existing path it protects there; walk
// is set when only listing the tree can tell (a ** or a glob comes next).
func (b *boundPath) under(abs string, segs []string) (hit string, walk bool) {
	if len(segs) < len(b.prefixFold) {
		// The tree holds the pattern's base (home, the project): the
		// names that follow decide.
		if !within(b.prefixFold, segs) {
			return "", false
		}
		names := append(append([]string(nil), b.prefix[len(segs):]...), literalRun(b.segs, 0)...)
		return existingPath(filepath.Join(abs, filepath.Join(names...))), false
	}
	if !within(segs, b.prefixFold) {
		return "", false
	}
	set := b.closure(1)
	for _, s := range segs[len(b.prefixFold):] {
		if set = b.step(set, b.segsFold, s); set == 0 {
			return "", false
		}
	}
	if set&(1<<len(b.segs)) != 0 {
		return abs, false
	}
	for s := set; s != 0; s &= s - 1 {
		run := literalRun(b.segs, bits.TrailingZeros64(s))
		if len(run) == 0 {
			return "", true
		}
		if p := existingPath(filepath.Join(abs, filepath.Join(run...))); p != "" {
			return p, false
		}
	}
	return "", false
}

// hiddenBelow reports a path under dir with a name below dir that starts
// with a dot.
func hiddenBelow(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	for _, name := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(name, ".") && name != "." && name != ".." {
			return true
		}
	}
	return false
}

// literalRun is the names of segs from i on up to the first ** or glob.
func literalRun(segs []string, i int) []string {
	j := i
	for j < len(segs) && segs[j] != "**" && !strings.ContainsAny(segs[j], `*?[\`) {
		j++
	}
	return segs[i:j]
}

// existingPath returns p when something exists there (a link counts).
func existingPath(p string) string {
	if _, err := os.Lstat(p); err == nil {
		return p
	}
	return ""
}

// walkTree lists the tree at abs and returns the strictest rule that
// matches a name in it: the first deny rule's hit ends the walk, an
// escalate rule's hit is kept while the walk looks on for a deny.
func (e *Engine) walkTree(abs string, rules []*boundRule, how treeRead) (*boundRule, string, error) {
	var best *boundRule
	var bestHit string
	keep := func(r *boundRule, hit string) bool {
		if best == nil || r.Tier > best.Tier {
			best, bestHit = r, hit
		}
		return r.Tier == Deny
	}
	count := 0
	stack := []string{abs}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue // not a directory, or unreadable: the tool cannot read it either
		}
		for _, ent := range ents {
			if how.skipHidden && strings.HasPrefix(ent.Name(), ".") {
				continue
			}
			if count++; count > maxTreeEntries {
				return nil, "", errTreeTooLarge
			}
			p := filepath.Join(dir, ent.Name())
			segs := pathSegments(p)
			folded := foldSegments(segs)
			for _, r := range rules {
				if r.path.match(segs, folded, true) && keep(r, p) {
					return r, p, nil
				}
			}
			switch {
			case ent.IsDir():
				stack = append(stack, p)
			case ent.Type()&fs.ModeSymlink != 0 && how.follow:
				if r, hit := e.linkOut(p, abs); r != nil && keep(r, hit) {
					return r, hit, nil
				}
			}
		}
	}
	return best, bestHit, nil
}

// linkOut checks a link found under the tree at root: when it leads out
// of the tree, a tool that follows it reads its target (and, for a
// directory, everything under it), so every deny or escalate rule that
// could match there counts.
func (e *Engine) linkOut(link, root string) (*boundRule, string) {
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		return nil, ""
	}
	tsegs := foldSegments(pathSegments(target))
	if within(tsegs, foldSegments(pathSegments(root))) {
		return nil, ""
	}
	ix := e.index(Read)
	if ix == nil {
		return nil, ""
	}
	for _, tier := range []*tierRules{&ix.deny, &ix.escalate} {
		for _, r := range tier.all {
			if r.path == nil {
				continue
			}
			if r.path.match(pathSegments(target), tsegs, true) {
				return r, link + " -> " + target
			}
			if hit, walk := r.path.under(target, tsegs); hit != "" || walk && isDir(target) {
				return r, link + " -> " + target
			}
		}
	}
	return nil, ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Bounds on expanding a glob the way the shell will.
const (
	maxGlobMatches = 256
	maxGlobScanned = 10000
)

var errGlobTooBroad = errors.New("the glob reaches too many files to check them")

// isPlainGlob reports a path that is dynamic only because of glob
// characters (*, ?, [...]): no expansion, quoting or brace is left in it,
// and no ".." (which the shell resolves through links, unlike a lexical
// glob). Such a path can be expanded now, as the shell will expand it.
func isPlainGlob(p string) bool {
	if !strings.ContainsAny(p, "*?[") || strings.ContainsAny(p, "$`\"'\\{}()<>|;&\n\t\x00") {
		return false
	}
	if strings.Contains(p[1:], "~") {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return false
		}
	}
	return true
}

// expandGlob lists the existing paths the glob p (relative to dir)
// matches. Unlike bash, names starting with '.' match '*' too: checking
// more files fails closed. Zero matches means the shell passes the word
// as it is.
func (e *Engine) expandGlob(p, dir string) ([]string, error) {
	p, err := e.res.expandHome(p)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	vol := filepath.VolumeName(p)
	cur := []string{vol + string(filepath.Separator)}
	scanned := 0
	for _, seg := range splitComps(p[len(vol):]) {
		if !strings.ContainsAny(seg, "*?[") {
			for i := range cur {
				cur[i] = filepath.Join(cur[i], seg)
			}
			continue
		}
		seg = strings.Replace(seg, "[!", "[^", -1)
		if _, err := filepath.Match(seg, ""); err != nil {
			return nil, fmt.Errorf("%w: unsupported glob %q", errBadPath, seg)
		}
		if cur, err = globDirs(cur, seg, &scanned); err != nil {
			return nil, err
		}
	}
	return existing(cur), nil
}

func globDirs(dirs []string, seg string, scanned *int) ([]string, error) {
	var next []string
	for _, d := range dirs {
		names, err := readNames(d, maxGlobScanned-*scanned)
		*scanned += len(names)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if ok, _ := filepath.Match(seg, n); ok {
				if next = append(next, filepath.Join(d, n)); len(next) > maxGlobMatches {
					return nil, errGlobTooBroad
				}
			}
		}
	}
	return next, nil
}

// readNames lists at most limit names of the directory d; a path that
// is not a readable directory has none.
func readNames(d string, limit int) ([]string, error) {
	f, err := os.Open(d)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	names, err := f.Readdirnames(limit + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil
	}
	if len(names) > limit {
		return nil, errGlobTooBroad
	}
	return names, nil
}

func existing(paths []string) []string {
	out := paths[:0]
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
