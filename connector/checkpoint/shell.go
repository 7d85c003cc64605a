package checkpoint

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// gitWorkTree lists the git commands that can delete or overwrite files
// of the work tree without naming them as operands the analyzer sees as
// writes: their checkpoint is the whole work tree (cheap with the stat
// cache, since git leaves most files as they were).
var gitWorkTree = map[string]bool{
	"checkout": true, "restore": true, "reset": true, "clean": true, "stash": true,
	"switch": true, "merge": true, "rebase": true, "pull": true, "cherry-pick": true,
	"revert": true, "am": true, "apply": true, "read-tree": true, "checkout-index": true,
	"rm": true, "mv": true, "bisect": true, "filter-branch": true, "sparse-checkout": true,
}

// rewriters are tools that rewrite or extract files the analyzer does
// not name as writes (an archive's members, a patch's files, a
// formatter's tree): their checkpoint is the whole work tree. A program
// key with a subcommand is "prog sub".
var rewriters = map[string]bool{
	"unzip": true, "7z": true, "patch": true, "dos2unix": true, "unix2dos": true,
	"go fmt": true, "go fix": true, "cargo fmt": true, "cargo fix": true, "rustfmt": true,
	"prettier": true, "eslint": true, "black": true, "ruff": true, "isort": true, "autopep8": true,
	"clang-format": true,
}

// rewrites reports whether an Exec's words start a rewriter.
func rewrites(args []shell.Word) bool {
	if len(args) > 1 && (args[0].Text == "npx" || args[0].Text == "bunx") {
		args = args[1:]
	}
	prog := filepath.Base(args[0].Text)
	if rewriters[prog] {
		return true
	}
	return len(args) > 1 && rewriters[prog+" "+args[1].Text]
}

// gitValued are git's global options that take the next word as value.
var gitValued = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--exec-path": true, "--config-env": true}

// ForShell says what an allowed shell script run in cwd is about to
// delete or overwrite: the paths of the analyzer's Write effects (a
// redirection, rm, mv, cp, sed -i, truncate, tar -x, find -delete, ...;
// a directory stands for its whole tree), or the whole work tree when a
// git command or a known rewriter (unzip, patch, go fmt, prettier, ...)
// rewrites it, a written path is only known at run time, or part of the
// script is opaque to the analyzer. A program that writes files of its
// own accord (make clean, a script) is not seen here.
func ForShell(script, cwd string) (paths []string, wholeTree bool) {
	for _, e := range shell.Analyze(script, shell.Options{}) {
		switch e.Kind {
		case shell.Opaque:
			return nil, true
		case shell.Exec:
			if len(e.Args) > 1 && filepath.Base(e.Args[0].Text) == "git" && gitWorkTree[gitSubcommand(e.Args[1:])] {
				return nil, true
			}
			if len(e.Args) > 0 && rewrites(e.Args) {
				return nil, true
			}
		case shell.Write:
			ps, ok := writePaths(e, cwd)
			if !ok {
				return nil, true
			}
			paths = append(paths, ps...)
		}
	}
	return paths, false
}

func gitSubcommand(args []shell.Word) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.Dynamic:
			return "" // unknown: an Opaque or the policy covers it
		case gitValued[a.Text]:
			i++
		case strings.HasPrefix(a.Text, "-"):
		default:
			return a.Text
		}
	}
	return ""
}

// writePaths resolves one Write effect against cwd: a literal path, or
// the matches of a plain glob; false when the path is not known.
func writePaths(e shell.Effect, cwd string) ([]string, bool) {
	p := e.Path
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, false
		}
		p = filepath.Join(home, p[1:])
	} else if strings.HasPrefix(p, "~") {
		return nil, false // another user's home
	}
	if !e.Dynamic {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return []string{p}, true
	}
	if strings.ContainsAny(p, "$`~{") {
		return nil, false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	m, err := filepath.Glob(p)
	if err != nil {
		return nil, false
	}
	return m, true
}
