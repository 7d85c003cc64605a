package shell

// role says what a tool does with its operands.
type role uint8

const (
	roleNone  role = iota // operands are not files it reads or writes
	roleRead              // every operand is a file it reads
	roleWrite             // every operand is a file it writes (rm, touch, mkdir, tee)
	roleCopy              // sources read, last operand (or -t DIR) written (cp, install)
	roleMove              // sources and destination written (mv)
	roleLink              // every operand written: a link makes its target writable (ln)
	roleInOut             // [INPUT [OUTPUT]]: read then written (uniq, xxd)
)

// toolSpec is the table-driven knowledge of one tool.
type toolSpec struct {
	opts        optSpec
	role        role
	pattern     bool     // the first operand is a pattern unless a patternOpt is given
	patternOpts []string // options that give the pattern instead (-e, -f)
	skip        int      // operands before the files (chmod MODE)
	skipUnless  []string // options that remove the skipped operands (--reference)
	readOpts    []string // options whose value is a file read
	listOpts    []string // options whose value is a file naming the files it reads (--files0-from)
	writeOpts   []string // options whose value is a file written
	globOpts    []string // options whose value is a glob the tool matches names with
	opaqueOpts  []string // options that run other programs, each "--opt reason"
	linkOpts    []string // options that make roleCopy create links (cp -s)
	recurseOpts []string // options that make it read directory operands whole
	recurse     bool     // it always reads directory operands whole (rg, diff)
	dotIf       []string // with one of these and no file operand, it reads "."
	dot         bool     // with no file operand, it reads "."
}

// sensitive reports a tool whose options run programs or choose the
// files it writes.
func (s *toolSpec) sensitive() bool {
	return len(s.opaqueOpts) > 0 || len(s.writeOpts) > 0 || len(s.linkOpts) > 0
}

// toolHandler returns the handler of a tool the analyzer knows, or nil.
func toolHandler(name string) handler {
	switch name {
	case "find":
		return findTool
	case "sed", "gsed":
		return sedTool
	case "git":
		return gitTool
	case "tar", "bsdtar":
		return tarTool
	case "awk", "gawk", "mawk", "nawk", "busybox-awk", "original-awk", "onetrue-awk":
		return awkTool
	case "chmod":
		return chmodTool
	case "dd":
		return ddTool
	case "jq":
		return jqTool
	case "less":
		return lessTool
	case "echo":
		return echoCommand
	case "printf":
		return printfCommand
	case "test", "[":
		return testCommand
	case "make", "gmake":
		return makeTool
	case "npm", "pnpm", "yarn", "npx":
		return npmTool
	case "go":
		return goTool
	case "gofmt":
		return gofmtTool
	case "pytest", "py.test":
		return pytestTool
	case "mvn", "mvnw":
		return mvnTool
	case "gradle", "gradlew":
		return gradleTool
	case "dotnet":
		return dotnetTool
	case "cargo":
		return cargoTool
	case "sqlite3":
		return sqliteTool
	case "deno":
		return denoTool
	case "curl":
		return curlTool
	case "wget":
		return wgetTool
	case "rsync":
		return rsyncTool
	case "patch":
		return patchTool
	case "unzip":
		return unzipTool
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4":
		return compressTool
	}
	if spec := toolSpecs()[name]; spec != nil {
		return func(w *walker, argv []Word, c cmdCtx) { w.applySpec(spec, argv, c) }
	}
	return lintHandler(name)
}

// applySpec emits the effects a table-described tool has.
func (w *walker) applySpec(s *toolSpec, argv []Word, c cmdCtx) {
	name := baseName(argv[0].Text)
	p := parseArgs(argv[1:], &s.opts)
	w.opaqueOptions(s, p, name, c)
	w.optionFiles(s, p, name, c)
	files := p.operands
	if s.pattern && !p.has(s.patternOpts...) && len(files) > 0 {
		files = files[1:]
	}
	if s.skip > 0 && !p.has(s.skipUnless...) {
		files = files[min(s.skip, len(files)):]
	}
	if len(files) == 0 && (s.dot || p.has(s.dotIf...)) && !c.open {
		files = []Word{{Text: "."}}
	}
	start := len(w.a.effects)
	w.operandFiles(s, p, files, name, c)
	if s.recursiveRead(p) {
		w.a.markRecursive(start)
		if name == "rg" && rgSkipsHidden(p) {
			w.a.markSkipsHidden(start)
		}
		if p.dynamic || followsLinks(name, p) {
			w.a.markFollows(start)
		}
	}
}

// opaqueOptions reports (and adds Opaque for) options that run programs;
// with a tool whose options run programs or choose what it writes, an
// argument of unknown value could be one of them.
func (w *walker) opaqueOptions(s *toolSpec, p parsedArgs, name string, c cmdCtx) bool {
	if !s.sensitive() {
		return false
	}
	found := false
	for _, entry := range s.opaqueOpts {
		opt, reason, _ := cutByte(entry, ' ')
		if p.has(opt) {
			w.a.opaqueSrc(c.src, name+" "+opt+" "+reason)
			found = true
		}
	}
	if p.dynamic {
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could be a dangerous option")
		found = true
	}
	return found
}

func (w *walker) optionFiles(s *toolSpec, p parsedArgs, name string, c cmdCtx) {
	for _, f := range p.values(s.readOpts...) {
		w.pathEffect(Read, f, name+" reads the file", c.src)
	}
	for _, f := range p.values(s.listOpts...) {
		w.pathEffect(Read, f, name+" reads the list of files", c.src)
		w.a.add(Effect{Kind: Read, Path: "(the files " + f.Text + " names)", Dynamic: true,
			Reason: name + " reads the files a list names", Source: c.src})
	}
	for _, f := range p.values(s.writeOpts...) {
		w.pathEffect(Write, f, name+" writes the file", c.src)
	}
	for _, g := range p.values(s.globOpts...) {
		if !g.Dynamic {
			w.protectGlob(g.Text, c.src)
		}
	}
}

// operandFiles adds the effects of the file operands by role.
func (w *walker) operandFiles(s *toolSpec, p parsedArgs, files []Word, name string, c cmdCtx) {
	if c.open {
		w.openOperands(s.role, name, c)
	}
	switch s.role {
	case roleRead:
		w.each(Read, files, name+" reads the file", c)
	case roleLink:
		w.linkOperands(p, files, name, c)
	case roleWrite:
		w.each(Write, files, name+" writes the file", c)
	case roleMove:
		w.each(Write, files, name+" moves the file", c)
	case roleCopy:
		w.copyOperands(s, p, files, name, c)
	case roleInOut:
		if len(files) > 0 {
			w.pathEffect(Read, files[0], name+" reads the file", c.src)
		}
		if len(files) > 1 {
			w.pathEffect(Write, files[1], name+" writes its output file", c.src)
		}
	}
}

// openOperands: with xargs, operands arrive at run time.
func (w *walker) openOperands(r role, name string, c cmdCtx) {
	kind := Read
	switch r {
	case roleNone:
		return
	case roleWrite, roleMove, roleLink, roleCopy, roleInOut:
		kind = Write
	}
	w.a.add(Effect{Kind: kind, Path: "(from xargs input)", Dynamic: true, Reason: name + " operands come from xargs input", Source: c.src})
}

func (w *walker) each(kind Kind, files []Word, reason string, c cmdCtx) {
	for _, f := range files {
		w.pathEffect(kind, f, reason, c.src)
	}
}

// copyOperands: cp SRC... DST or cp -t DIR SRC...
func (w *walker) copyOperands(s *toolSpec, p parsedArgs, files []Word, name string, c cmdCtx) {
	srcKind := Read
	if p.has(s.linkOpts...) {
		srcKind = Write
	}
	if dirs := p.values("-t", "--target-directory"); len(dirs) > 0 {
		w.each(srcKind, files, name+" copies from the file", c)
		return
	}
	if len(files) == 0 {
		return
	}
	if p.has("-d") && name == "install" {
		w.each(Write, files, "install -d creates the directory", c)
		return
	}
	w.each(srcKind, files[:len(files)-1], name+" copies from the file", c)
	w.pathEffect(Write, files[len(files)-1], name+" writes the destination", c.src)
}
