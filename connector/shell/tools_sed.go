package shell

// sedTool: sed -i writes its files; e/w commands escalate; r reads.
func sedTool(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "efl", optShort: "i", argLong: []string{"--expression", "--file", "--line-length"}}
	p := parseArgs(argv[1:], &spec)
	if p.dynamic {
		w.a.opaqueSrc(c.src, "sed has an argument of unknown value that could be a script or -i")
		return
	}
	if p.has("-f", "--file") {
		w.a.opaqueSrc(c.src, "sed -f reads its script from a file")
	}
	scripts := p.values("-e", "--expression")
	files := p.operands
	if len(scripts) == 0 && len(files) > 0 && !p.has("-f", "--file") {
		scripts, files = files[:1], files[1:]
	}
	if !p.has("--sandbox") {
		for _, s := range scripts {
			w.sedScript(s.Text, c)
		}
	}
	if p.has("-i", "--in-place") {
		w.each(Write, files, "sed -i edits the file", c)
		if c.open {
			w.openOperands(roleWrite, "sed -i", c)
		}
		return
	}
	w.each(Read, files, "sed reads the file", c)
}

func (w *walker) sedScript(script string, c cmdCtx) {
	reads, danger := checkSed(script)
	if danger != "" {
		w.a.opaqueSrc(c.src, danger)
	}
	for _, r := range reads {
		w.pathEffect(Read, Word{Text: r}, "sed r reads the file", c.src)
	}
}
