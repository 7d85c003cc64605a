package shell

import "strings"

// gitGlobalArg are git's global options that take a separate argument.
var gitGlobalArg = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--super-prefix": true, "--config-env": true, "--exec-path": false, "--list-cmds": false, "--attr-source": true}

// gitGlobalOpaque change which repository, configuration or programs git
// uses: any of them can make git run a program.
var gitGlobalOpaque = map[string]string{
	"-c":             "git -c sets configuration that can run programs",
	"--config-env":   "git --config-env sets configuration that can run programs",
	"--exec-path":    "git --exec-path changes where git finds its programs",
	"--git-dir":      "git --git-dir uses another repository's configuration and hooks",
	"--work-tree":    "git --work-tree uses another work tree",
	"--super-prefix": "git --super-prefix is internal",
}

const gitGlobalFlags = "-p -P --paginate --no-pager --no-replace-objects --bare --literal-pathspecs " +
	"--glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-lazy-fetch " +
	"--no-advice --html-path --man-path --info-path --version --help -v -h"

// gitTool checks git's global options, then its subcommand.
func gitTool(w *walker, argv []Word, c cmdCtx) {
	args := argv[1:]
	save := w.cwd
	defer func() { w.cwd = save }()
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			w.a.opaqueSrc(c.src, "git has an argument of unknown value that could be a dangerous option")
			return
		}
		name, val, hasVal, isOpt := gitGlobal(a.Text)
		if !isOpt {
			break
		}
		if name == "-c" {
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i].Text
			}
			if !safeGitConfig(val) {
				w.a.opaqueSrc(c.src, gitGlobalOpaque["-c"]+": "+val)
				return
			}
			continue
		}
		if reason, bad := gitGlobalOpaque[gitLong(name)]; bad {
			w.a.opaqueSrc(c.src, reason)
			return
		}
		if !hasVal && gitGlobalArg[gitLong(name)] && i+1 < len(args) {
			i++
			val = args[i].Text
		}
		if name == "-C" {
			w.cwd = chdirState(w.cwd, Word{Text: val})
		} else if !gitGlobalArg[gitLong(name)] && !knownOption(gitGlobalFlags+" --list-cmds --namespace --attr-source", name) {
			w.a.opaqueSrc(c.src, "git option not understood: "+name)
			return
		}
	}
	if i < len(args) {
		w.gitSubcommand(args[i].Text, args[i+1:], c)
	}
}

// gitGlobal splits a global option word: -C, -cNAME=V, --opt=V.
func gitGlobal(t string) (name, val string, hasVal, isOpt bool) {
	switch {
	case len(t) < 2 || t[0] != '-':
		return "", "", false, false
	case strings.HasPrefix(t, "--"):
		name, val, hasVal = strings.Cut(t, "=")
		return name, val, hasVal, true
	case len(t) > 2 && (t[1] == 'c' || t[1] == 'C'):
		return t[:2], t[2:], true, true
	}
	return t, "", false, true
}

// gitLong maps an abbreviated global long option to its full name.
func gitLong(name string) string {
	if !strings.HasPrefix(name, "--") {
		return name
	}
	for full := range gitGlobalArg {
		if longIs(name, full) {
			return full
		}
	}
	for full := range gitGlobalOpaque {
		if longIs(name, full) {
			return full
		}
	}
	return name
}

// gitArgOpts are subcommand options whose value is a separate word.
var gitArgOpts = map[string]bool{
	"-m": true, "--message": true, "-F": true, "--file": true, "--author": true, "-n": true,
	"--max-count": true, "-b": true, "-B": true, "--format": true, "--pretty": true, "--grep": true,
	"-G": true, "--date": true, "--since": true, "--until": true, "-t": true,
	"--template": true, "-o": true, "--output-directory": true, "--output": true, "-x": true,
	"--exec": true, "--upload-pack": true, "--receive-pack": true, "--depth": true,
	"--branch": true, "--origin": true, "--reference": true, "-X": true, "--strategy-option": true,
	"--strategy": true, "--onto": true, "-e": true, "-O": true, "-U": true,
}

// gitParsed is a subcommand's arguments.
type gitParsed struct {
	opts     []option
	operands []Word
	dynamic  bool // a word of unknown value where an option may be
}

func parseGitArgs(args []Word) gitParsed {
	var g gitParsed
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case args[i].Dynamic:
			g.dynamic = g.dynamic || mayBeOption(args[i])
			g.operands = append(g.operands, args[i])
		case t == "--":
			g.operands = append(g.operands, args[i+1:]...)
			return g
		case len(t) > 1 && t[0] == '-':
			name, val, has := strings.Cut(t, "=")
			if !has && gitArgOpts[name] && i+1 < len(args) {
				i++
				val, has = args[i].Text, true
			}
			g.opts = append(g.opts, option{name: name, value: Word{Text: val}, hasVal: has})
		default:
			g.operands = append(g.operands, args[i])
		}
	}
	return g
}

// clusterHas reports a short option -X given in a cluster or with an
// attached value (-O'cmd', -ix): any single-dash word holding the letter.
func (g gitParsed) clusterHas(short string) bool {
	if len(short) != 2 || short[0] != '-' {
		return false
	}
	for _, o := range g.opts {
		if !strings.HasPrefix(o.name, "--") && strings.IndexByte(o.name[1:], short[1]) >= 0 {
			return true
		}
	}
	return false
}

func (g gitParsed) has(names ...string) bool {
	p := parsedArgs{opts: g.opts}
	return p.has(names...)
}

func (g gitParsed) values(names ...string) []Word {
	p := parsedArgs{opts: g.opts}
	return p.values(names...)
}
