package shell

import "strings"

// gitOpaqueOpts are subcommand options that run programs, by subcommand
// ("*" for all).
var gitOpaqueOpts = map[string][]string{
	"*":         {"--ext-diff runs an external diff program", "--upload-pack runs a program", "--receive-pack runs a program", "--exec runs a program"},
	"clone":     {"-u runs a program as upload-pack", "-c sets configuration that can run programs", "--config sets configuration that can run programs", "--template installs hooks from a directory"},
	"fetch":     {"-u runs a program as upload-pack"},
	"ls-remote": {"-u runs a program as upload-pack"},
	"pull":      {"-u runs a program as upload-pack"},
	"init":      {"--template installs hooks from a directory"},
	"rebase":    {"-x runs a command after each commit", "--exec runs a command after each commit"},
	"grep":      {"-O runs a pager program", "--open-files-in-pager runs a pager program"},
	"difftool":  {"-x runs a command", "--extcmd runs a command"},
	"mergetool": {"-x runs a command", "--extcmd runs a command"},
}

// gitPathspecCmds take pathspecs, which git matches as globs.
var gitPathspecCmds = map[string]bool{
	"add": true, "rm": true, "mv": true, "checkout": true, "restore": true, "reset": true,
	"clean": true, "stash": true, "ls-files": true, "diff": true, "log": true, "status": true,
	"commit": true, "show": true, "archive": true, "update-index": true, "check-ignore": true,
}

// pathspecPattern is a pathspec without its magic prefix (":(glob,icase)",
// ":!", ":^", ":/"), the part git matches names with.
func pathspecPattern(spec string) string {
	if !strings.HasPrefix(spec, ":") {
		return spec
	}
	if strings.HasPrefix(spec, ":(") {
		if i := strings.IndexByte(spec, ')'); i > 0 {
			return spec[i+1:]
		}
		return spec
	}
	rest := strings.TrimLeft(spec[1:], "!^/")
	return strings.TrimPrefix(rest, ":")
}

func (w *walker) gitSubcommand(sub string, args []Word, c cmdCtx) {
	g := parseGitArgs(args)
	if g.dynamic {
		w.a.opaqueSrc(c.src, "git "+sub+" has an argument of unknown value that could be a dangerous option")
	}
	for _, key := range []string{"*", sub} {
		for _, entry := range gitOpaqueOpts[key] {
			opt, reason, _ := strings.Cut(entry, " ")
			if g.has(opt) || g.clusterHas(opt) {
				w.a.opaqueSrc(c.src, "git "+sub+" "+opt+" "+reason)
			}
		}
	}
	for _, op := range g.operands {
		if strings.HasPrefix(op.Text, "ext::") || strings.HasPrefix(op.Text, "fd::") {
			w.a.opaqueSrc(c.src, "git remote helper "+op.Text+" runs a program")
		}
		if gitPathspecCmds[sub] {
			w.protectGlob(pathspecPattern(op.Text), c.src)
		}
	}
	for _, f := range g.values("--output") {
		w.pathEffect(Write, f, "git --output writes the file", c.src)
	}
	w.gitSubcommandEffects(sub, g, c)
	w.gitReads(sub, args, c)
}

// gitSubcommandEffects covers the subcommands that write, delete or run.
func (w *walker) gitSubcommandEffects(sub string, g gitParsed, c cmdCtx) {
	switch sub {
	case "config":
		if reason := gitConfigWrites(g); reason != "" {
			w.a.opaqueSrc(c.src, reason)
		}
	case "submodule":
		if len(g.operands) > 0 && g.operands[0].Text == "foreach" {
			w.a.opaqueSrc(c.src, "git submodule foreach runs a command in each submodule")
		}
	case "bisect":
		if len(g.operands) > 0 && g.operands[0].Text == "run" {
			w.a.opaqueSrc(c.src, "git bisect run runs a command")
		}
	case "filter-branch", "filter-repo":
		w.a.opaqueSrc(c.src, "git "+sub+" runs filter commands")
	case "clean":
		if !g.has("-n", "--dry-run") {
			w.a.opaqueSrc(c.src, "git clean deletes untracked files (which can include .sandbox)")
		}
	case "stash":
		if g.has("-u", "--include-untracked", "-a", "--all") {
			w.a.opaqueSrc(c.src, "git stash -u/-a removes untracked files (which can include .sandbox)")
		}
	case "format-patch":
		for _, d := range g.values("-o", "--output-directory") {
			w.pathEffect(Write, d, "git format-patch writes patches", c.src)
		}
	case "archive":
		for _, f := range g.values("-o") {
			w.pathEffect(Write, f, "git archive writes the file", c.src)
		}
	case "bundle":
		if len(g.operands) > 1 && g.operands[0].Text == "create" {
			w.pathEffect(Write, g.operands[1], "git bundle create writes the file", c.src)
		}
	case "apply", "am":
		if sub == "am" || !g.has("--check", "--stat", "--numstat", "--summary") || g.has("--apply") {
			w.a.add(Effect{Kind: Write, Path: ".", Dynamic: true, Reason: "git " + sub + " writes the files named in the patch", Source: c.src})
		}
	}
}

// gitConfigReadOpts are git config options that do not write.
const gitConfigReadOpts = "--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool " +
	"-l --list --show-origin --show-scope --name-only -z --null --type --bool --int --bool-or-int " +
	"--path --expiry-date --default --global --system --local --worktree -f --file --blob " +
	"--includes --no-includes --all --regexp --value --fixed-value --url"

// gitConfigWrites returns why a git config invocation escalates, or "".
func gitConfigWrites(g gitParsed) string {
	for _, o := range g.opts {
		if !knownOption(gitConfigReadOpts, o.name) {
			return "git config " + o.name + " changes configuration (which can run programs)"
		}
	}
	ops := g.operands
	if len(ops) > 0 && (ops[0].Text == "get" || ops[0].Text == "list") {
		return ""
	}
	if g.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool") || len(ops) <= 1 {
		return ""
	}
	return "git config sets configuration (which can run programs)"
}
