package shell

import "strings"

// xargsWrapper: xargs runs its command with arguments read from stdin.
func xargsWrapper(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{
		argShort:  "aEdILnPs",
		optShort:  "eil",
		argLong:   []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
		posixStop: true,
	}
	p := parseArgs(argv[1:], &spec)
	for _, o := range p.opts {
		if !knownOption(xargsOptions, o.name) {
			w.exec(argv, c)
			w.a.opaqueSrc(c.src, "xargs option not understood: "+o.name)
			return
		}
	}
	for _, n := range p.values("--process-slot-var") {
		if n.Dynamic || dangerousVar(n.Text) != "" {
			w.a.opaqueSrc(c.src, "xargs --process-slot-var sets "+n.Text)
		}
	}
	for _, f := range p.values("-a", "--arg-file") {
		w.pathEffect(Read, f, "xargs -a reads arguments from the file", c.src)
	}
	cmd := p.operands
	if len(cmd) == 0 {
		cmd = []Word{{Text: "echo"}}
	}
	if repl, ok := xargsReplace(p); ok {
		cmd = markReplaced(cmd, repl)
	}
	inner := c.wrapped("xargs")
	inner.open = true
	w.run(cmd, inner)
}

const xargsOptions = "-0 -a -d -E -e -I -i -L -l -n -o -P -p -r -s -t -x " +
	"--null --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs " +
	"--max-chars --process-slot-var --no-run-if-empty --open-tty --interactive --verbose --exit --show-limits"

// xargsReplace returns the replace-string of -I/-i/--replace.
func xargsReplace(p parsedArgs) (string, bool) {
	for _, o := range p.opts {
		switch {
		case o.name == "-I":
			return o.value.Text, true
		case o.name == "-i" || knownOption("--replace", o.name):
			if o.hasVal && o.value.Text != "" {
				return o.value.Text, true
			}
			return "{}", true
		}
	}
	return "", false
}

// markReplaced marks the words that contain xargs' replace-string as
// dynamic: they are rewritten with input data at run time.
func markReplaced(cmd []Word, repl string) []Word {
	out := make([]Word, len(cmd))
	for i, a := range cmd {
		out[i] = a
		if repl == "" || strings.Contains(a.Text, repl) {
			out[i].Dynamic = true
		}
	}
	return out
}

// watchWrapper: watch runs its arguments joined by spaces through sh -c,
// or directly with -x.
func watchWrapper(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "nqs", optShort: "d", argLong: []string{"--interval", "--equexit", "--shotsdir"}, posixStop: true}
	p := parseArgs(argv[1:], &spec)
	for _, o := range p.opts {
		if !knownOption(watchOptions, o.name) {
			w.exec(argv, c)
			w.a.opaqueSrc(c.src, "watch option not understood: "+o.name)
			return
		}
	}
	for _, d := range p.values("-s", "--shotsdir") {
		w.pathEffect(Write, d, "watch --shotsdir writes screenshots", c.src)
	}
	if len(p.operands) == 0 {
		w.exec(argv, c)
		return
	}
	if p.has("-x", "--exec") {
		w.run(p.operands, c.wrapped("watch"))
		return
	}
	w.shellWords(p.operands, c.wrapped("watch"), "watch")
}

const watchOptions = "-n -q -s -d -t -b -e -g -c -C -w -p -r -x -h -v --interval --equexit " +
	"--shotsdir --differences --no-title --beep --errexit --chgexit --color --no-color " +
	"--no-wrap --precise --no-rerun --exec"

// shellWords analyses words that a program joins with spaces and runs
// with sh -c.
func (w *walker) shellWords(words []Word, c cmdCtx, who string) {
	parts := make([]string, len(words))
	for i, a := range words {
		if a.Dynamic {
			w.a.opaqueSrc(c.src, who+" runs a command string that is not literal")
			return
		}
		parts[i] = a.Text
	}
	w.shellBody(strings.Join(parts, " "), c)
}

// flockWrapper: flock [OPTS] FILE CMD... or flock [OPTS] FILE -c STRING.
func flockWrapper(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "wEc", argLong: []string{"--wait", "--timeout", "--conflict-exit-code", "--command"}, posixStop: true}
	p := parseArgs(argv[1:], &spec)
	if len(p.operands) > 1 && !p.operands[1].Dynamic {
		if t := p.operands[1].Text; t == "-c" || longIs(strings.SplitN(t, "=", 2)[0], "--command") {
			more := parseArgs(p.operands[1:], &optSpec{argShort: "c", argLong: []string{"--command"}})
			p.opts = append(p.opts, more.opts...)
			p.operands = append(p.operands[:1:1], more.operands...)
		}
	}
	for _, o := range p.opts {
		if !knownOption(flockOptions, o.name) {
			w.exec(argv, c)
			w.a.opaqueSrc(c.src, "flock option not understood: "+o.name)
			return
		}
	}
	if len(p.operands) == 0 {
		w.exec(argv, c)
		return
	}
	if !isIntegerText(p.operands[0].Text) || p.operands[0].Dynamic {
		w.pathEffect(Write, p.operands[0], "flock creates its lock file", c.src)
	} else if len(p.operands) == 1 {
		w.exec(argv, c)
	}
	if cmds := p.values("-c", "--command"); len(cmds) > 0 {
		w.shellWords(cmds[:1], c.wrapped("flock -c"), "flock -c")
		return
	}
	if len(p.operands) > 1 {
		w.run(p.operands[1:], c.wrapped("flock"))
	}
}

const flockOptions = "-s -x -e -u -n -w -E -o -F -c --shared --exclusive --unlock --nonblock --nb " +
	"--wait --timeout --conflict-exit-code --close --no-fork --verbose --command"

// suWrapper: su/runuser escalates by itself; -c STRING runs through a shell.
func suWrapper(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	spec := optSpec{argShort: "cgGsw", argLong: []string{"--command", "--session-command", "--group", "--supp-group", "--shell", "--whitelist-environment"}}
	p := parseArgs(argv[1:], &spec)
	for _, body := range p.values("-c", "--command", "--session-command") {
		w.shellWords([]Word{body}, c.wrapped(argv[0].Text+" -c"), argv[0].Text+" -c")
	}
}

// scriptWrapper: script [-c STRING] [FILE] records a session into FILE.
func scriptWrapper(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	spec := optSpec{argShort: "cEIOBTmo", argLong: []string{"--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit"}}
	p := parseArgs(argv[1:], &spec)
	out := Word{Text: "typescript"}
	if len(p.operands) > 0 {
		out = p.operands[0]
	}
	w.pathEffect(Write, out, "script records the session", c.src)
	for _, f := range p.values("-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing") {
		w.pathEffect(Write, f, "script writes its log", c.src)
	}
	for _, body := range p.values("-c", "--command") {
		w.shellWords([]Word{body}, c.wrapped("script -c"), "script -c")
	}
}
