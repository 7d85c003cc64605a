package shell

import "strings"

// The go command parses flags with Go's flag package: -name and --name are
// the same flag, a value is attached with = or is the next word, and there
// are no clusters. go test also hands -test.NAME (and anything after
// -args) to the test binary, whose testing flags write files too. So every
// word is looked at, not only those before the packages.

// goOpaqueFlags run, substitute or load programs or files that change what
// is built: any of them escalates.
var goOpaqueFlags = map[string]string{
	"exec":     "runs the test binaries through another program",
	"toolexec": "runs the toolchain through another program",
	"vettool":  "runs another program as go vet",
	"overlay":  "substitutes source files with files named in a JSON file",
}

// goWriteFlags write the file or directory they name (relative to -C, and
// for go test's profiles to -outputdir).
var goWriteFlags = map[string]string{
	"o": "go -o writes the file", "pkgdir": "go -pkgdir installs packages into the directory",
	"debug-actiongraph": "go -debug-actiongraph writes the file", "debug-trace": "go -debug-trace writes the file",
	"debug-runtime-trace": "go -debug-runtime-trace writes the file",
	"outputdir":           "go test -outputdir writes profiles into the directory",
	"testlogfile":         "the test binary writes its log", "gocoverdir": "the test binary writes coverage data",
	"fuzzcachedir": "the test binary writes its fuzzing cache",
}

// goProfileFlags are go test's outputs placed in -outputdir when relative.
var goProfileFlags = map[string]bool{
	"cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true,
	"trace": true, "coverprofile": true,
}

// goFlag splits a word into the name of a go flag and its attached value:
// -name, --name, -name=v, --name=v. ok is false for a non-flag.
func goFlag(t string) (name, val string, has, ok bool) {
	if len(t) < 2 || t[0] != '-' || t == "--" {
		return "", "", false, false
	}
	t = strings.TrimPrefix(t[1:], "-")
	name, val, has = strings.Cut(t, "=")
	return name, val, has, name != ""
}

// goState is what one go invocation's flags say so far.
type goState struct {
	outdir Word   // -outputdir (profiles relative to it)
	writes []Word // files written, in order
	kinds  []string
}

// goTool checks the go command's flags: programs it runs (-exec,
// -toolexec, -vettool, linker and compiler flags), files it writes (-o,
// profiles, -modfile), files it reads (-pgo), its directory (-C) and
// persistent settings (go env -w).
func goTool(w *walker, argv []Word, c cmdCtx) {
	args := argv[1:]
	for _, a := range args {
		if a.Dynamic && mayBeOption(a) {
			w.a.opaqueSrc(c.src, "go has an argument of unknown value that could be a dangerous flag")
			return
		}
	}
	save := w.cwd
	defer func() { w.cwd = save }()
	var st goState
	for i := 0; i < len(args); i++ {
		name, val, has, ok := goFlag(args[i].Text)
		if !ok || args[i].Dynamic {
			continue
		}
		name = strings.TrimPrefix(name, "test.")
		value := func() Word {
			if has {
				return Word{Text: val}
			}
			if i+1 < len(args) {
				return args[i+1]
			}
			return Word{}
		}
		w.goFlagEffect(&st, name, value, c)
	}
	for i, f := range st.writes {
		w.pathEffect(Write, f, st.kinds[i], c.src)
	}
	w.goSubcommand(args, c)
}

// goFlagEffect handles one flag; value returns its value word.
func (w *walker) goFlagEffect(st *goState, name string, value func() Word, c cmdCtx) {
	if reason, bad := goOpaqueFlags[name]; bad {
		w.a.opaqueSrc(c.src, "go -"+name+" "+reason)
		return
	}
	switch {
	case name == "C":
		dir := value()
		if leavesDir(dir) {
			w.a.opaqueSrc(c.src, "go -C "+clip(dir.Text)+" runs the go command in another directory")
		}
		w.cwd = chdirState(w.cwd, dir)
	case name == "ldflags" || name == "gcflags" || name == "asmflags" || name == "gccgoflags":
		if v := value(); !safeGoToolFlags(name, v.Text) || v.Dynamic {
			w.a.opaqueSrc(c.src, "go -"+name+" "+clip(v.Text)+" passes flags to the toolchain that can run programs or write files")
		}
	case name == "modfile":
		f := value()
		w.pathEffect(Write, f, "go -modfile reads and updates the file", c.src)
		if s, ok := strings.CutSuffix(f.Text, ".mod"); ok && !f.Dynamic {
			w.pathEffect(Write, Word{Text: s + ".sum"}, "go -modfile updates the go.sum beside it", c.src)
		}
	case name == "pgo":
		if v := value(); v.Dynamic || v.Text != "auto" && v.Text != "off" && v.Text != "default" {
			w.pathEffect(Read, v, "go -pgo reads the profile", c.src)
		}
	case name == "outputdir":
		st.outdir = value()
		st.add(st.outdir, goWriteFlags[name])
	case goProfileFlags[name]:
		f := value()
		if st.outdir.Text != "" && !f.Dynamic && !isAbsPath(f.Text) {
			// -outputdir may come after the profile flag: both orders are
			// resolved the same way by go test.
			f = Word{Text: strings.TrimSuffix(st.outdir.Text, "/") + "/" + f.Text, Dynamic: st.outdir.Dynamic}
		}
		st.add(f, "go test -"+name+" writes the file")
	case goWriteFlags[name] != "":
		st.add(value(), goWriteFlags[name])
	}
}

func (st *goState) add(f Word, reason string) {
	st.writes = append(st.writes, f)
	st.kinds = append(st.kinds, reason)
}

// goSubcommand: go env -w/-u persist settings (GOFLAGS can carry any flag
// above into every later go command); go doc -http runs a server it
// downloads.
func (w *walker) goSubcommand(args []Word, c cmdCtx) {
	sub := -1
	for i, a := range args {
		if _, _, _, ok := goFlag(a.Text); !ok {
			sub = i
			break
		}
	}
	if sub >= 0 && args[sub].Text == "doc" {
		for _, a := range args[sub+1:] {
			if name, _, _, ok := goFlag(a.Text); ok && name == "http" {
				w.a.opaqueSrc(c.src, "go doc -http downloads and runs a documentation server (pkgsite) and opens a browser")
			}
		}
	}
	if sub < 0 || args[sub].Text != "env" {
		return
	}
	for _, a := range args[sub+1:] {
		if name, _, _, ok := goFlag(a.Text); ok && (name == "w" || name == "u") {
			w.a.opaqueSrc(c.src, "go env -"+name+" changes persistent settings (GOFLAGS, GOPROXY, GOTOOLCHAIN)")
		}
	}
}

// goSafeToolFlags are the compiler, linker and assembler flags that only
// change the code produced: everything else (-extld, -linkmode=external,
// -extldflags, -toolexec-like tmpdirs, profiles, -importcfg, ...) may
// run a program or read or write a file, and escalates. Flags marked true
// take the next word as their value.
var goSafeToolFlags = map[string]map[string]bool{
	"ldflags": {"s": false, "w": false, "X": true, "buildid": true, "B": true, "v": false,
		"compressdwarf": false, "strictdups": true},
	"gcflags": {"N": false, "l": false, "m": false, "S": false, "e": false, "B": false,
		"C": false, "L": false, "wb": false, "live": false, "c": true, "d": true},
	"asmflags":   {"D": true, "S": false, "e": false},
	"gccgoflags": {},
}

// goSafeDebug are the only -gcflags=-d settings allowed (others dump files).
var goSafeDebug = map[string]bool{"checkptr": true, "checkptr=0": true, "checkptr=1": true, "checkptr=2": true}

// safeGoToolFlags reports whether the value of -ldflags (or -gcflags,
// -asmflags, -gccgoflags) holds only flags that cannot run programs or
// touch files. The value is [PATTERN=]FLAGS, FLAGS split like
// cmd/internal/quoted (spaces, with ' and " quoting).
func safeGoToolFlags(which, v string) bool {
	if i := strings.IndexByte(v, '='); i >= 0 && !strings.HasPrefix(v, "-") && !strings.ContainsAny(v[:i], " '\"") {
		v = v[i+1:] // a package pattern: all=-N -l
	}
	words, ok := splitQuoted(v)
	if !ok {
		return false
	}
	allowed := goSafeToolFlags[which]
	for i := 0; i < len(words); i++ {
		name, val, has, isFlag := goFlag(words[i])
		takesArg, known := allowed[name]
		if !isFlag || !known {
			return false
		}
		if name == "d" {
			if !has && i+1 < len(words) {
				val = words[i+1]
			}
			if !goSafeDebug[val] {
				return false
			}
		}
		if takesArg && !has {
			i++
		}
	}
	return true
}

// splitQuoted splits s at spaces, honouring '...' and "..." quoting as
// cmd/internal/quoted does; ok is false for an unterminated quote.
func splitQuoted(s string) (out []string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return out, true
		}
		if q := s[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, false
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
}

// leavesDir reports a directory word that may lead out of the directory
// the command starts in: unknown, absolute, home-relative or through "..".
// (A symlink inside the project that leads out is the policy's to resolve
// for paths; a directory change is not a path the policy sees.)
func leavesDir(d Word) bool {
	t := d.Text
	if d.Dynamic || t == "" || isAbsPath(t) || strings.HasPrefix(t, "~") {
		return true
	}
	for _, seg := range strings.FieldsFunc(t, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

// isAbsPath reports a path starting at a root (/x, \x, C:\x, C:/x).
func isAbsPath(t string) bool {
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, `\`) {
		return true
	}
	return len(t) > 2 && t[1] == ':' && (t[2] == '/' || t[2] == '\\')
}

// gofmtTool: -w rewrites its operands (files, and the .go files of
// directories); without -w they are read. -cpuprofile writes a file.
func gofmtTool(w *walker, argv []Word, c cmdCtx) {
	p := parseGoStyle(argv[1:], "r cpuprofile")
	if p.dynamic {
		w.a.opaqueSrc(c.src, "gofmt has an argument of unknown value that could be -w")
	}
	for _, f := range p.values("cpuprofile") {
		w.pathEffect(Write, f, "gofmt -cpuprofile writes the file", c.src)
	}
	kind, reason := Read, "gofmt reads the file"
	if p.has("w") {
		kind, reason = Write, "gofmt -w rewrites the file"
	}
	w.each(kind, p.operands, reason, c)
}

// parseGoStyle parses args as Go's flag package does: flags end at the
// first non-flag word or --; valued (space-separated names) take the next
// word unless written -name=value. Option names are kept without dashes.
func parseGoStyle(args []Word, valued string) parsedArgs {
	var p parsedArgs
	takes := " " + valued + " "
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			p.dynamic = p.dynamic || mayBeOption(a)
			p.operands = args[i:]
			return p
		}
		if a.Text == "--" {
			p.operands = args[i+1:]
			return p
		}
		name, val, has, ok := goFlag(a.Text)
		if !ok {
			p.operands = args[i:]
			return p
		}
		if !has && strings.Contains(takes, " "+name+" ") && i+1 < len(args) {
			i++
			val, has = args[i].Text, true
			if args[i].Dynamic {
				p.dynamic = true
			}
		}
		p.opts = append(p.opts, option{name: name, value: Word{Text: val}, hasVal: has})
	}
	return p
}
