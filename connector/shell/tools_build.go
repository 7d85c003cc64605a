package shell

import "strings"

// makeTool: --eval and VAR=VALUE overrides change the commands recipes run.
func makeTool(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "CfIloWE", optShort: "j", argLong: []string{"--directory", "--file", "--makefile", "--include-dir", "--load-average", "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new", "--eval", "--jobserver-style", "--output-sync"}}
	p := parseArgs(argv[1:], &spec)
	switch {
	case p.dynamic:
		w.a.opaqueSrc(c.src, "make has an argument of unknown value that could be a variable override")
	case p.has("-E", "--eval"):
		w.a.opaqueSrc(c.src, "make --eval evaluates make code, which can run commands")
	}
	for _, op := range p.operands {
		if strings.Contains(op.Text, "=") {
			w.a.opaqueSrc(c.src, "make variable override "+clip(op.Text)+" can change the commands recipes run")
		}
	}
	for _, f := range p.values("-f", "--file", "--makefile") {
		w.pathEffect(Read, f, "make reads the makefile", c.src)
	}
}

// npmOpaque are package-manager options that choose programs or config.
var npmOpaque = []string{"--script-shell", "--node-options", "--userconfig", "--globalconfig", "--call", "--prefix", "--shell", "--init-module"}

// npmTool: npm/pnpm/yarn/npx options that pick the script shell or load
// other configuration, persistent config changes, and command strings.
func npmTool(w *walker, argv []Word, c cmdCtx) {
	name := baseName(argv[0].Text)
	p := parseArgs(argv[1:], &optSpec{})
	if p.dynamic {
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could be a dangerous option")
	}
	for _, o := range p.opts {
		for _, bad := range npmOpaque {
			if longIs(o.name, bad) {
				w.a.opaqueSrc(c.src, name+" "+bad+" changes which programs run")
			}
		}
		if o.name == "-c" && (name == "npx" || len(p.operands) > 0 && (p.operands[0].Text == "exec" || p.operands[0].Text == "x")) {
			w.a.opaqueSrc(c.src, name+" -c runs a command string")
		}
	}
	ops := p.operands
	if len(ops) > 0 && (ops[0].Text == "set" || ops[0].Text == "config" && len(ops) > 1 && ops[1].Text != "get" && ops[1].Text != "list" && ops[1].Text != "ls") {
		w.a.opaqueSrc(c.src, name+" config changes persistent settings (script-shell, registries)")
	}
}

// goTool: -exec, -toolexec and -overlay run or substitute programs; go env
// -w persists settings such as GOFLAGS; -o writes a file.
func goTool(w *walker, argv []Word, c cmdCtx) {
	args := argv[1:]
	for i, a := range args {
		if a.Dynamic && mayBeOption(a) {
			w.a.opaqueSrc(c.src, "go has an argument of unknown value that could be a dangerous flag")
			return
		}
		name, val, has := strings.Cut(strings.TrimPrefix(a.Text, "-"), "=")
		if !strings.HasPrefix(a.Text, "-") {
			continue
		}
		switch name {
		case "exec", "-exec", "toolexec", "-toolexec", "overlay", "-overlay":
			w.a.opaqueSrc(c.src, "go -"+strings.TrimPrefix(name, "-")+" runs or substitutes programs")
		case "o", "-o":
			if !has && i+1 < len(args) {
				val, has = args[i+1].Text, true
			}
			if has {
				w.pathEffect(Write, Word{Text: val}, "go -o writes the file", c.src)
			}
		}
	}
	if len(args) > 1 && args[0].Text == "env" {
		for _, a := range args[1:] {
			if a.Text == "-w" || a.Text == "-u" {
				w.a.opaqueSrc(c.src, "go env "+a.Text+" changes persistent settings (GOFLAGS, GOPROXY)")
			}
		}
	}
}

// cargoTool: --config can set runners and linkers.
func cargoTool(w *walker, argv []Word, c cmdCtx) {
	for _, a := range argv[1:] {
		if a.Dynamic && mayBeOption(a) {
			w.a.opaqueSrc(c.src, "cargo has an argument of unknown value that could be --config")
			return
		}
		if a.Text == "--config" || strings.HasPrefix(a.Text, "--config=") {
			w.a.opaqueSrc(c.src, "cargo --config can set the programs cargo runs")
		}
	}
}

// denoTool: deno eval and deno repl run program text.
func denoTool(w *walker, argv []Word, c cmdCtx) {
	if len(argv) > 1 && (argv[1].Text == "eval" || argv[1].Text == "repl" || argv[1].Dynamic) {
		w.a.opaqueSrc(c.src, "deno "+argv[1].Text+" runs program text")
	}
}

// sqliteTool: dot-commands (.shell, .system) and load_extension() run
// programs; without SQL arguments sqlite3 reads commands from stdin.
func sqliteTool(w *walker, argv []Word, c cmdCtx) {
	var ops []Word
	for i := 1; i < len(argv); i++ {
		t := argv[i].Text
		switch {
		case t == "-init" || t == "-cmd":
			w.a.opaqueSrc(c.src, "sqlite3 "+t+" runs commands")
			i++
		case strings.HasPrefix(t, "-") && !argv[i].Dynamic:
			if knownOption("-separator -newline -nullvalue -mmap -maxsize -vfs -heap -lookaside -pagecache -escape", t) {
				i++
			}
		default:
			ops = append(ops, argv[i])
		}
	}
	if len(ops) < 2 {
		w.a.opaqueSrc(c.src, "sqlite3 reads commands (including .shell) from standard input")
	}
	for _, sql := range ops[min(1, len(ops)):] {
		lower := strings.ToLower(sql.Text)
		if sql.Dynamic || strings.HasPrefix(strings.TrimSpace(lower), ".") || strings.Contains(lower, "load_extension") {
			w.a.opaqueSrc(c.src, "sqlite3 command can run programs or load code")
		}
	}
	if len(ops) > 0 {
		w.pathEffect(Write, ops[0], "sqlite3 opens the database", c.src)
	}
}
