package shell

import "strings"

// sedSpec is GNU sed's command line (sed.c: "bsnrzuEe:f:l:i::V:" and its
// long options); options that are not in it make sed print its usage.
var sedSpec = optSpec{argShort: "efl", optShort: "i", argLong: []string{"--expression", "--file", "--line-length"}}

var sedFlags = map[string]bool{
	"-b": true, "-s": true, "-n": true, "-r": true, "-z": true, "-u": true, "-E": true,
	"-e": true, "-f": true, "-l": true, "-i": true,
	"--binary": true, "--regexp-extended": true, "--debug": true, "--expression": true,
	"--file": true, "--in-place": true, "--line-length": true, "--null-data": true,
	"--zero-terminated": true, "--quiet": true, "--posix": true, "--silent": true,
	"--sandbox": true, "--separate": true, "--unbuffered": true, "--version": true,
	"--help": true, "--follow-symlinks": true,
}

// sedTool: sed -i writes its files (and a backup named by its suffix);
// the program's e commands escalate, its w commands write and its r
// commands read.
func sedTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &sedSpec)
	if p.dynamic {
		w.a.opaqueSrc(c.src, "sed has an argument of unknown value that could be a script or -i")
		return
	}
	if !sedOptionsKnown(p) {
		w.a.opaqueSrc(c.src, "sed option not understood")
	}
	if p.has("-f", "--file") {
		w.a.opaqueSrc(c.src, "sed -f reads its program from a file")
	}
	scripts, files := sedScripts(argv[1:], p)
	for _, s := range scripts {
		if s.Dynamic {
			w.a.opaqueSrc(c.src, "sed program is not literal")
			return
		}
	}
	w.sedProgram(scripts, c)
	if suffix, ok := p.find("-i", "--in-place"); ok {
		w.each(Write, files, "sed -i edits the file", c)
		w.sedBackups(suffix, files, c)
		if c.open {
			w.openOperands(roleWrite, "sed -i", c)
		}
		return
	}
	w.each(Read, files, "sed reads the file", c)
}

func sedOptionsKnown(p parsedArgs) bool {
	for _, o := range p.opts {
		known := sedFlags[o.name]
		if !known && strings.HasPrefix(o.name, "--") {
			for full := range sedFlags {
				if strings.HasPrefix(full, "--") && longIs(o.name, full) {
					known = true
				}
			}
		}
		if !known {
			return false
		}
	}
	return true
}

// sedScripts returns the program texts sed compiles and the file
// operands. Without -e or -f the first operand is the program. GNU sed
// compiles each -e as it meets it, and --sandbox (which refuses e, r and
// w) only affects what is compiled after it: the first operand is
// compiled after every option. BSD sed's -i takes its suffix as the
// next word, often empty: GNU sed then reads that empty word as the
// program and the real program as a file, so both readings are checked.
func sedScripts(args []Word, p parsedArgs) (scripts, files []Word) {
	sandbox := false
	for _, o := range p.opts {
		switch {
		case longIs(o.name, "--sandbox"):
			sandbox = true
		case (o.name == "-e" || longIs(o.name, "--expression")) && !sandbox:
			scripts = append(scripts, o.value)
		}
	}
	files = p.operands
	if p.has("-e", "--expression", "-f", "--file") || len(files) == 0 {
		return scripts, files
	}
	if !sandbox {
		scripts = append(scripts, files[0])
	}
	if o, _ := p.find("-i"); o.name == "-i" && !o.hasVal && files[0].Text == "" && len(files) > 1 {
		scripts = append(scripts, files[1])
	}
	return scripts, files[1:]
}

// sedProgram checks the program sed compiles from its -e scripts (one
// program, the scripts joined by newlines).
func (w *walker) sedProgram(scripts []Word, c cmdCtx) {
	if len(scripts) == 0 {
		return
	}
	texts := make([]string, len(scripts))
	for i, s := range scripts {
		texts[i] = s.Text
	}
	prog := parseSed(strings.Join(texts, "\n"))
	if prog.danger != "" {
		w.a.opaqueSrc(c.src, prog.danger)
	}
	for _, r := range prog.reads {
		w.pathEffect(Read, Word{Text: r}, "sed r reads the file", c.src)
	}
	for _, f := range prog.writes {
		w.pathEffect(Write, Word{Text: f}, "sed w writes the file", c.src)
	}
}

// sedBackups: -iSUFFIX renames each file to its backup name: SUFFIX with
// every * replaced by the file's name, or the name followed by SUFFIX
// when it has no *. A / in it makes the backup a path anywhere.
func (w *walker) sedBackups(suffix option, files []Word, c cmdCtx) {
	s := suffix.value.Text
	if !suffix.hasVal || s == "" || s == "*" {
		return
	}
	if strings.Contains(s, "/") {
		w.a.opaqueSrc(c.src, "sed -i with a backup suffix that is a path ("+clip(s)+")")
	}
	if !strings.Contains(s, "*") {
		s = "*" + s
	}
	for _, f := range files {
		if f.Dynamic {
			w.a.opaqueSrc(c.src, "sed -i backup of a file of unknown name")
			continue
		}
		w.pathEffect(Write, Word{Text: strings.ReplaceAll(s, "*", f.Text)}, "sed -i writes the backup", c.src)
	}
}
