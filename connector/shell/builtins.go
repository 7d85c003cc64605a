package shell

import (
	"strings"
	"sync"
)

// builtinHandler returns the handler of a bash builtin that needs more
// than an Exec effect, or nil.
func builtinHandler(name string) handler {
	switch name {
	case "eval", "source", ".", "alias", "unalias", "hash", "trap", "enable", "fc", "bind":
		return opaqueBuiltin
	case "exec":
		return execBuiltin
	case "builtin":
		return builtinBuiltin
	case "command":
		return commandBuiltin
	case "cd", "pushd", "popd":
		return cdBuiltin
	case "exit", "return", "logout":
		return exitBuiltin
	case "export", "declare", "typeset", "local", "readonly":
		return declBuiltin
	}
	return varBuiltinHandler(name)
}

// opaqueReasons say why a builtin that runs or redefines commands cannot
// be analysed. Built on first use (see toolSpecs).
var opaqueReasons = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"eval":    "eval runs a string as commands",
		"source":  "source runs a file's commands in this shell",
		".":       ". runs a file's commands in this shell",
		"alias":   "alias redefines what a command name runs",
		"unalias": "unalias changes what a command name runs",
		"hash":    "hash can bind a command name to any file",
		"trap":    "trap runs a string as commands later",
		"enable":  "enable can load a builtin from a shared library or hide one",
		"fc":      "fc re-runs commands from the history",
		"bind":    "bind can run commands on key presses",
	}
})

func opaqueBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	w.a.opaqueSrc(c.src, opaqueReasons()[argv[0].Text])
}

// execBuiltin: exec CMD replaces the shell with CMD; exec with only
// redirections changes the shell's file descriptors for what follows.
func execBuiltin(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &optSpec{argShort: "a", posixStop: true})
	if len(p.operands) == 0 {
		w.exec(argv, c)
		w.a.opaqueSrc(c.src, "exec without a command changes the shell's file descriptors")
		return
	}
	for _, o := range p.opts {
		if o.name != "-a" && o.name != "-c" && o.name != "-l" {
			w.a.opaqueSrc(c.src, "exec option not understood: "+o.name)
		}
	}
	w.run(p.operands, c.wrapped("exec"))
	w.cwd = cwdState{dead: true}
}

// builtinBuiltin: builtin NAME ARGS runs the builtin NAME.
func builtinBuiltin(w *walker, argv []Word, c cmdCtx) {
	if len(argv) == 1 {
		w.exec(argv, c)
		return
	}
	w.run(argv[1:], c.wrapped("builtin"))
}

// commandBuiltin: command [-p] CMD runs CMD bypassing functions;
// command -v/-V only describes it.
func commandBuiltin(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &optSpec{posixStop: true})
	for _, o := range p.opts {
		switch o.name {
		case "-v", "-V":
			w.exec(argv, c)
			return
		case "-p":
		default:
			w.exec(argv, c)
			w.a.opaqueSrc(c.src, "command option not understood: "+o.name)
			return
		}
	}
	if len(p.operands) == 0 {
		w.exec(argv, c)
		return
	}
	w.run(p.operands, c.wrapped("command"))
}

// cdBuiltin changes the directory that later relative paths are relative
// to (see cwdState).
func cdBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	if c.argvMode {
		return
	}
	name := argv[0].Text
	dir, ok := cdTarget(argv[1:])
	switch {
	case name == "popd" || !ok:
		w.cwd = merge(w.cwd, unknownCwd)
	case dir == "":
		w.cwd = w.cwd.cd("~")
	case dir == "-" || name == "pushd" && (dir[0] == '+' || dir[0] == '-'):
		w.cwd = merge(w.cwd, unknownCwd)
	default:
		w.cwd = w.cwd.cd(dir)
	}
}

// cdTarget returns the directory operand of cd or pushd ("" for none);
// ok is false when it is not literal.
func cdTarget(args []Word) (string, bool) {
	for i, a := range args {
		switch {
		case a.Dynamic:
			return "", false
		case a.Text == "--":
			if i+1 < len(args) {
				return args[i+1].Text, !args[i+1].Dynamic
			}
			return "", true
		case len(a.Text) > 1 && a.Text[0] == '-' && strings.Trim(a.Text[1:], "LPen@") == "":
			continue
		default:
			return a.Text, true
		}
	}
	return "", true
}

func exitBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	if !c.argvMode {
		w.cwd = cwdState{dead: true}
	}
}

// declBuiltin handles export/declare/... reached as an ordinary command
// (\export, builtin export): NAME=VALUE words after evaluation.
func declBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	variant := argv[0].Text
	spec := declareOpts
	if variant == "export" || variant == "readonly" {
		spec = exportOpts
	}
	p := bashGetopt(argv[1:], spec)
	if w.badOptions(&p, variant, c) {
		return
	}
	flags := p.letters()
	if strings.Contains(flags, "n") && variant != "export" {
		w.a.opaqueSrc(c.src, variant+" -n makes a name refer to any variable")
	}
	for _, a := range p.operands {
		if a.Dynamic {
			w.a.opaqueSrc(c.src, variant+" with an argument that is not literal")
			continue
		}
		w.declOperand(variant, flags, a.Text, c)
	}
}

// declOperand checks NAME or NAME=VALUE given to a declaration builtin
// as a string ('a[x]=1', or a quoted word of a declare clause): bash
// evaluates the subscript in the name, and evaluates the value as
// arithmetic for an integer variable or as a compound assignment, with
// subscripts of its own, when it is in parentheses.
func (w *walker) declOperand(variant, flags, text string, c cmdCtx) {
	name, val, has := strings.Cut(text, "=")
	base := w.nameOperand(Word{Text: strings.TrimSuffix(name, "+")}, variant, c)
	if base == "" {
		return
	}
	if strings.Contains(flags, "i") {
		w.vars.info(base).intAttr = true
	}
	if containsAny(flags, "aA") {
		w.markArray(base)
	}
	if !has {
		if variant == "local" || variant == "declare" || variant == "typeset" {
			w.assignAt(base, c.off, c.src, true) // now empty in this scope
		} else if reason := dangerousVar(base); reason != "" {
			w.a.opaqueSrc(c.src, variant+" "+base+" "+reason)
		}
		return
	}
	integer := isIntegerText(val)
	if strings.HasPrefix(val, "(") {
		w.a.opaqueSrc(c.src, variant+" with a value in parentheses (a compound assignment whose subscripts are evaluated)")
	}
	w.assignAt(base, c.off, c.src, integer)
}
