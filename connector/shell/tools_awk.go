package shell

var awkSpec = optSpec{
	argShort: "FvfeEil",
	optShort: "dop",
	argLong:  []string{"--field-separator", "--assign", "--file", "--source", "--exec", "--include", "--load"},
}

var awkOpaque = []string{
	"-f reads its program from a file", "--file reads its program from a file",
	"-E reads its program from a file", "--exec reads its program from a file",
	"-i includes a source file", "--include includes a source file",
	"-l loads a shared library", "--load loads a shared library",
	"-d writes a file", "--dump-variables writes a file", "-o writes a file",
	"--pretty-print writes a file", "-p writes a file", "--profile writes a file",
}

// awkTool: awk programs that call system(), pipe to or from commands or
// redirect output escalate; file operands are read.
func awkTool(w *walker, argv []Word, c cmdCtx) {
	name := baseName(argv[0].Text)
	p := parseArgs(argv[1:], &awkSpec)
	if p.dynamic {
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could be a program")
		return
	}
	for _, entry := range awkOpaque {
		opt, reason, _ := cutByte(entry, ' ')
		if p.has(opt) {
			w.a.opaqueSrc(c.src, name+" "+opt+" "+reason)
		}
	}
	progs := p.values("-e", "--source")
	files := p.operands
	if len(progs) == 0 && !p.has("-f", "--file", "-E", "--exec") && len(files) > 0 {
		progs, files = files[:1], files[1:]
	}
	if !p.has("-S", "--sandbox") {
		for _, prog := range progs {
			w.awkProgram(name, prog.Text, c)
		}
	}
	for _, f := range files {
		if !isAssignWord(f.Text) && f.Text != "-" {
			w.pathEffect(Read, f, name+" reads the file", c.src)
		}
	}
	if c.open {
		w.openOperands(roleRead, name, c)
	}
}

func (w *walker) awkProgram(name, prog string, c cmdCtx) {
	danger, getline := checkAwk(prog)
	if danger != "" {
		w.a.opaqueSrc(c.src, name+" program "+danger)
	}
	if getline {
		w.a.add(Effect{Kind: Read, Path: "(awk getline <)", Dynamic: true, Reason: name + " getline reads a file named by the program", Source: c.src})
	}
}
