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
	for _, d := range p.values("-C", "--directory", "-f", "--file", "--makefile") {
		if leavesDir(d) {
			w.a.opaqueSrc(c.src, "make runs the recipes of a makefile elsewhere: "+clip(d.Text))
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
	for _, o := range p.opts {
		// yarn --cwd, pnpm -C/--dir: run another package's scripts.
		if o.name == "--cwd" || o.name == "--dir" || o.name == "-C" {
			d := o.value
			if !o.hasVal {
				d = nextWord(argv, o.name)
			}
			if leavesDir(d) {
				w.a.opaqueSrc(c.src, name+" "+o.name+" runs the scripts of a package elsewhere: "+clip(d.Text))
			}
		}
	}
	ops := p.operands
	if len(ops) > 0 && (ops[0].Text == "set" || ops[0].Text == "config" && len(ops) > 1 && ops[1].Text != "get" && ops[1].Text != "list" && ops[1].Text != "ls") {
		w.a.opaqueSrc(c.src, name+" config changes persistent settings (script-shell, registries)")
	}
}

// cargoTool: --config and -Z can set runners and linkers; --target-dir
// and friends choose where it writes; --manifest-path and -C build (and run
// the build scripts of) a package elsewhere.
func cargoTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &cargoOpts)
	if p.dynamic {
		w.a.opaqueSrc(c.src, "cargo has an argument of unknown value that could be --config")
	}
	if p.has("--config") {
		w.a.opaqueSrc(c.src, "cargo --config can set the programs cargo runs")
	}
	if p.has("-Z") {
		w.a.opaqueSrc(c.src, "cargo -Z enables unstable features (config includes, scripts)")
	}
	for _, d := range p.values("-C", "--manifest-path") {
		if leavesDir(d) {
			w.a.opaqueSrc(c.src, "cargo builds and runs the build scripts of a package elsewhere: "+clip(d.Text))
		}
	}
	for _, d := range p.values("--target-dir", "--artifact-dir", "--out-dir", "--lockfile-path") {
		w.pathEffect(Write, d, "cargo writes its build output there", c.src)
	}
}

var cargoOpts = optSpec{argShort: "CZjpF", argLong: []string{"--config", "--manifest-path", "--target-dir",
	"--artifact-dir", "--out-dir", "--lockfile-path", "--package", "--features", "--jobs", "--target",
	"--profile", "--bin", "--example", "--test", "--bench", "--color", "--message-format", "--exclude"}}

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

// nextWord returns the word after the first one spelled opt ("" if none).
func nextWord(argv []Word, opt string) Word {
	for i, a := range argv[:len(argv)-1] {
		if a.Text == opt && !a.Dynamic {
			return argv[i+1]
		}
	}
	return Word{}
}
