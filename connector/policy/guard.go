package policy

import (
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/shell"
)

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
	for _, comp := range strings.FieldsFunc(c, func(r rune) bool { return r == '/' || r == '\\' }) {
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
