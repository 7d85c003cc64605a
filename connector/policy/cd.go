package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

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
	contained bool           // that Exec is allowed by a jailed rule on a jailed engine (contained.go)
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
