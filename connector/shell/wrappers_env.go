package shell

import "strings"

// envWrapper: env [OPTIONS] [NAME=VALUE]... [CMD ARGS].
func envWrapper(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "uCS", argLong: []string{"--unset", "--chdir", "--split-string"}, posixStop: true}
	p := parseArgs(argv[1:], &spec)
	for _, o := range p.opts {
		if !w.envOption(o, c) {
			w.exec(argv, c)
			return
		}
	}
	cmd := p.operands
	for len(cmd) > 0 && !cmd[0].Dynamic && isEnvAssign(cmd[0].Text) {
		name, _, _ := strings.Cut(cmd[0].Text, "=")
		if reason := dangerousVar(name); reason != "" {
			w.a.opaqueSrc(c.src, "env "+name+"= "+reason)
		}
		cmd = cmd[1:]
	}
	if len(cmd) > 0 && cmd[0].Text == "-" && !cmd[0].Dynamic {
		cmd = cmd[1:]
	}
	if len(cmd) == 0 {
		w.exec(argv, c)
		return
	}
	save := w.cwd
	if dirs := p.values("-C", "--chdir"); len(dirs) > 0 {
		w.cwd = chdirState(save, dirs[len(dirs)-1])
		// The command runs there: the policy decides the directory as it
		// decides a cd (leaving the project escalates; git there may be
		// in a nested repository).
		w.exec([]Word{{Text: "cd"}, dirs[len(dirs)-1]}, c.wrapped("env -C"))
	}
	w.run(cmd, c.wrapped("env"))
	w.cwd = save
}

// envOption checks one env option; false means it was reported Opaque.
func (w *walker) envOption(o option, c cmdCtx) bool {
	switch {
	case knownOption("-i -0 -v --ignore-environment --null --debug -C --chdir", o.name):
		return true
	case knownOption("--block-signal --default-signal --ignore-signal --list-signal-handling", o.name):
		return true
	case o.name == "-u" || knownOption("--unset", o.name):
		if o.value.Dynamic || dangerousVar(o.value.Text) != "" {
			w.a.opaqueSrc(c.src, "env -u "+o.value.Text+" changes what programs run or load")
			return false
		}
		return true
	case o.name == "-S" || knownOption("--split-string", o.name):
		w.a.opaqueSrc(c.src, "env -S splits a string into a command")
		return false
	}
	w.a.opaqueSrc(c.src, "env option not understood: "+o.name)
	return false
}

// chdirState is the directory state after a wrapper's chdir to dir.
func chdirState(s cwdState, dir Word) cwdState {
	if dir.Dynamic {
		return unknownCwd
	}
	return s.cd(dir.Text)
}

// isAssignWord reports NAME=VALUE.
func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && isName(name)
}

// isEnvAssign reports a word env and sudo take as an assignment: any word
// with an = (env does not check the name: BASH_FUNC_ls%%=() {...} counts).
func isEnvAssign(s string) bool {
	return strings.IndexByte(s, '=') > 0
}

// sudoWrapper: sudo escalates by itself (its own Exec effect) and runs
// the command after its options and NAME=VALUE words.
func sudoWrapper(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	spec := optSpec{
		argShort:  "ughpCDrtTUR",
		argLong:   []string{"--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot"},
		posixStop: true,
	}
	p := parseArgs(argv[1:], &spec)
	if p.has("-e", "--edit") || baseName(argv[0].Text) == "sudoedit" {
		for _, f := range p.operands {
			w.pathEffect(Write, f, "sudo -e edits the file", c.src)
		}
		return
	}
	cmd := p.operands
	for len(cmd) > 0 && !cmd[0].Dynamic && isEnvAssign(cmd[0].Text) {
		name, _, _ := strings.Cut(cmd[0].Text, "=")
		if reason := dangerousVar(name); reason != "" {
			w.a.opaqueSrc(c.src, "sudo "+name+"= "+reason)
		}
		cmd = cmd[1:]
	}
	if len(cmd) > 0 {
		w.run(cmd, c.wrapped("sudo"))
	}
}
