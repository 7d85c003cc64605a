package policy

import (
	"github.com/sandbox-dev/sandbox/connector/shell"
	"strings"
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
