package shell

import (
	"strings"
	"sync"
)

// understoodSpec says with which options a table tool's every effect is
// emitted as the Exec's sibling effects, so that the policy may decide the
// command on those effects alone (Effect.Understood). It is a whitelist:
// any other option, an abbreviated long option, a value the spec does not
// expect, or a word of unknown value where an option may stand leaves the
// command not understood, and its shell rules (or a human) decide.
type understoodSpec struct {
	flags     string   // short flags, no argument
	argShort  string   // short options with an argument (also in the tool's optSpec)
	long      []string // long flags, spelled in full
	longArg   []string // long options with a value (--opt=VAL or --opt VAL), spelled in full
	globsOK   bool     // a leading glob or expansion is fine: no option of it chooses what it writes or reads
	operands  func(p parsedArgs) bool
	moreWrite func(w *walker, p parsedArgs, c cmdCtx)
}

// understoodTools are the tools whose effects the analyzer emits in full
// with the options listed. Not here: anything that runs other programs
// (interpreters, build tools, find, xargs, git), reads a list of files
// from a file, or has options that pick the files it writes that are not
// decoded (sort -o, tree -o); and every option that makes cp, tar or ln
// follow or create links in ways the write effects do not show.
var understoodTools = sync.OnceValue(func() map[string]*understoodSpec {
	return map[string]*understoodSpec{
		"mkdir": {flags: "pv", argShort: "m", long: []string{"--parents", "--verbose"}, longArg: []string{"--mode"}},
		"touch": {flags: "acmh", argShort: "dt", long: []string{"--no-create", "--no-dereference"}, longArg: []string{"--date"}},
		"rm": {flags: "frRdvIi", globsOK: true, long: []string{"--force", "--recursive", "--dir", "--verbose",
			"--one-file-system", "--preserve-root"}},
		"rmdir": {flags: "pv", globsOK: true, long: []string{"--parents", "--verbose", "--ignore-fail-on-non-empty"}},
		// cp without recursion or link options: it writes its destination,
		// or DEST/NAME for each source NAME when DEST is a directory
		// (moreWrite adds those, so that a link already there is seen).
		"cp": {flags: "finpuvT", argShort: "t", long: []string{"--force", "--interactive", "--no-clobber",
			"--preserve", "--update", "--verbose", "--no-target-directory", "--remove-destination",
			"--strip-trailing-slashes", "--attributes-only"}, longArg: []string{"--target-directory"},
			moreWrite: copyIntoWrites},
		// mv renames: a link at the destination is replaced, not followed.
		"mv": {flags: "finuvT", argShort: "t", long: []string{"--force", "--interactive", "--no-clobber",
			"--update", "--verbose", "--no-target-directory", "--strip-trailing-slashes"},
			longArg: []string{"--target-directory"}},
		// ln: hard links, or symbolic links to absolute targets only: a
		// relative target is resolved from the link's directory, which the
		// write effects (relative to the working directory) do not show.
		"ln": {flags: "fnvTsi", long: []string{"--force", "--no-dereference", "--verbose", "--no-target-directory",
			"--symbolic", "--interactive"}, operands: lnTargetsAbsolute},
		// chmod ignores the links it meets below a directory (-R without
		// -L or -H), and changes the target of a link operand, which the
		// policy resolves.
		"chmod": {flags: "cfvR", long: []string{"--changes", "--silent", "--quiet", "--verbose", "--recursive",
			"--preserve-root"}, operands: chmodModeLiteral},
		// tar creating from the working directory (-C changes where the
		// names it reads are, which the read effects do not follow), or
		// listing; extracting writes names only the archive knows, which
		// the policy treats as a write of unknown path.
		"tar": {flags: "cxtvzjJaf", argShort: "f", long: []string{"--create", "--extract", "--list", "--verbose",
			"--gzip", "--bzip2", "--xz", "--zstd", "--auto-compress", "--get"}, longArg: []string{"--file", "--exclude"},
			operands: tarNoOldForm},
		"cat":      {flags: "AbeEnstTuv", globsOK: true, long: []string{"--show-all", "--number-nonblank", "--show-ends", "--number", "--squeeze-blank", "--show-tabs", "--show-nonprinting"}},
		"head":     {flags: "qvz", argShort: "nc", globsOK: true, long: []string{"--quiet", "--silent", "--verbose", "--zero-terminated"}, longArg: []string{"--lines", "--bytes"}},
		"tail":     {flags: "qvzfF", argShort: "nc", globsOK: true, long: []string{"--quiet", "--silent", "--verbose", "--zero-terminated", "--follow", "--retry"}, longArg: []string{"--lines", "--bytes"}},
		"wc":       {flags: "clmwL", long: []string{"--bytes", "--chars", "--lines", "--words", "--max-line-length"}},
		"ls":       {flags: "1aAlhrtSRdFiGnopsuUvX", globsOK: true, long: []string{"--all", "--almost-all", "--human-readable", "--reverse", "--recursive", "--directory", "--classify"}},
		"basename": {flags: "asz", long: []string{"--multiple", "--zero"}, longArg: []string{"--suffix"}},
		"dirname":  {flags: "z", long: []string{"--zero"}},
		"pwd":      {flags: "LP"},
		"true":     {},
		"false":    {},
	}
})

// afterTool refines the effects a tool's handler emitted for the Exec at
// index at: recursive writes, then Understood.
func (w *walker) afterTool(at int, key string, argv []Word, c cmdCtx) {
	if at >= len(w.a.effects) || w.a.effects[at].Kind != Exec {
		return
	}
	w.markRecursiveWrites(at, key, argv)
	w.markUnderstood(at, key, argv, c)
}

// markRecursiveWrites marks the writes of rm -r and chmod -R, and the
// sources of mv (which take their whole tree along), as Recursive: the
// policy checks the tree under each, not only its top.
func (w *walker) markRecursiveWrites(at int, key string, argv []Word) {
	var letters string
	switch key {
	case "rm":
		letters = "rR"
	case "chmod":
		letters = "R"
	case "mv":
	default:
		return
	}
	if key != "mv" && !hasRecursiveFlag(argv[1:], letters) {
		return
	}
	var only map[string]bool // mv: its sources only
	if key == "mv" {
		only = w.mvSources(argv[1:])
	}
	for i := range w.a.effects[at+1:] {
		if ef := &w.a.effects[at+1+i]; ef.Kind == Write && (only == nil || only[ef.Path]) {
			ef.Recursive = true
		}
	}
}

// mvSources returns the paths, as the write effects spell them, of the
// files mv moves (not its destination).
func (w *walker) mvSources(args []Word) map[string]bool {
	p := parseArgs(args, &toolSpecs()["mv"].opts)
	srcs := p.operands
	if !p.has("-t", "--target-directory") && len(srcs) > 0 {
		srcs = srcs[:len(srcs)-1]
	}
	out := map[string]bool{}
	for _, s := range srcs {
		path := s.Text
		if !s.Dynamic || s.Glob {
			path, _ = w.cwd.relocate(path)
		}
		out[path] = true
	}
	return out
}

// hasRecursiveFlag reports -r (a letter of letters in a cluster) or
// --recursive (or an abbreviation) before --, or a word of unknown value
// that may be one.
func hasRecursiveFlag(args []Word, letters string) bool {
	for _, a := range args {
		switch t := a.Text; {
		case a.Dynamic:
			if mayBeOption(a) {
				return true
			}
		case t == "--":
			return false
		case strings.HasPrefix(t, "--"):
			if longIs(t, "--recursive") {
				return true
			}
		case strings.HasPrefix(t, "-") && strings.ContainsAny(t[1:], letters):
			return true
		}
	}
	return false
}

// markUnderstood sets Understood on the Exec at index at when the command
// it ran (argv, whose base name is key) is a tool whose every effect was
// just emitted, and nothing it did was opaque.
func (w *walker) markUnderstood(at int, key string, argv []Word, c cmdCtx) {
	spec := understoodTools()[key]
	if spec == nil || c.open || w.a.full {
		return
	}
	if name := argv[0].Text; name != key && !(trustedCmdPath(name) && name[strings.LastIndexAny(name, `/\`)+1:] == key) {
		return // ./mkdir, MKDIR: some other program
	}
	for _, ef := range w.a.effects[at+1:] {
		if ef.Kind == Opaque || ef.Kind == Protected || ef.Kind == Exec {
			return
		}
	}
	p, ok := spec.parse(key, argv[1:])
	if !ok || spec.operands != nil && !spec.operands(p) {
		return
	}
	if spec.moreWrite != nil {
		spec.moreWrite(w, p, c)
	}
	w.a.effects[at].Understood = true
}

// parse parses args with the tool's own option table and checks every
// option against the whitelist.
func (s *understoodSpec) parse(key string, args []Word) (parsedArgs, bool) {
	opts := optSpec{argShort: s.argShort, argLong: s.longArg, exact: true}
	if key == "tar" {
		opts = tarSpec
	}
	for i, a := range args {
		if a.Dynamic && !s.globsOK && mayBeOption(a) && !dashDashBefore(args, i) {
			return parsedArgs{}, false
		}
	}
	p := parseArgs(args, &opts)
	for _, o := range p.opts {
		if !s.allows(o) {
			return p, false
		}
	}
	return p, true
}

func dashDashBefore(args []Word, i int) bool {
	for _, a := range args[:i] {
		if !a.Dynamic && a.Text == "--" {
			return true
		}
	}
	return false
}

func (s *understoodSpec) allows(o option) bool {
	if o.hasVal && o.value.Dynamic {
		return false
	}
	if strings.HasPrefix(o.name, "--") {
		for _, l := range s.long {
			if o.name == l && !o.hasVal {
				return true
			}
		}
		for _, l := range s.longArg {
			if o.name == l && o.hasVal {
				return true
			}
		}
		return false
	}
	ch := o.name[1]
	if strings.IndexByte(s.argShort, ch) >= 0 {
		return o.hasVal
	}
	return !o.hasVal && strings.IndexByte(s.flags, ch) >= 0
}

// copyIntoWrites adds, for cp SRC... DEST (or -t DEST), the write of
// DEST/NAME for each source: when DEST is a directory that is the file cp
// opens, following a link already there.
func copyIntoWrites(w *walker, p parsedArgs, c cmdCtx) {
	if p.has("-T", "--no-target-directory") {
		return
	}
	srcs, dests := p.operands, p.values("-t", "--target-directory")
	if len(dests) == 0 {
		if len(srcs) < 2 {
			return
		}
		srcs, dests = srcs[:len(srcs)-1], srcs[len(srcs)-1:]
	}
	for _, d := range dests {
		for _, s := range srcs {
			name := strings.TrimRight(s.Text, "/")
			name = name[strings.LastIndexByte(name, '/')+1:]
			if s.Glob && !d.Dynamic && name != "" {
				// the names the glob matches: the policy expands it in DEST
				w.pathEffect(Write, Word{Text: escapeGlobText(strings.TrimRight(d.Text, "/")) + "/" + name, Dynamic: true, Glob: true},
					"cp writes into the directory", c.src)
				continue
			}
			if d.Dynamic || s.Dynamic || name == "" || name == "." || name == ".." {
				w.a.add(Effect{Kind: Write, Path: d.Text + "/(a name of unknown value)", Dynamic: true,
					Reason: "cp writes into the directory", Source: c.src})
				continue
			}
			w.pathEffect(Write, Word{Text: strings.TrimRight(d.Text, "/") + "/" + name}, "cp writes into the directory", c.src)
		}
	}
}

// lnTargetsAbsolute: ln -s with a relative target is not understood.
func lnTargetsAbsolute(p parsedArgs) bool {
	if !p.has("-s", "--symbolic") {
		return true
	}
	targets := p.operands
	if len(targets) > 1 {
		targets = targets[:len(targets)-1]
	}
	for _, t := range targets {
		if t.Dynamic || !strings.HasPrefix(t.Text, "/") {
			return false
		}
	}
	return true
}

// chmodModeLiteral: the mode and every file are literal words (chmod's
// handler takes an unknown first word as the mode).
func chmodModeLiteral(p parsedArgs) bool {
	return len(p.operands) >= 2 && !p.operands[0].Dynamic
}

// tarNoOldForm: tar with its options in dashed form and an archive named.
func tarNoOldForm(p parsedArgs) bool {
	return len(p.values("-f", "--file")) == 1
}

// escapeGlobText escapes the glob characters of a literal path, as a
// Glob word's text holds them.
func escapeGlobText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
