package policy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

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
