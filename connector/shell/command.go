package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxUnwrap caps wrappers in wrappers (env env env ... cmd).
const maxUnwrap = 32

// cmdCtx is what dispatch knows about the simple command it classifies.
type cmdCtx struct {
	src      string // excerpt of the statement
	stdinDoc bool   // stdin is a here-document or here-string
	via      string // wrappers unwrapped so far, outermost first
	open     bool   // more arguments are appended at run time (xargs)
	depth    int    // wrappers unwrapped so far
	argvMode bool   // argv run without a shell
	off      int    // offset of the statement in the script
}

// wrapped is the context of the command a wrapper runs.
func (c cmdCtx) wrapped(wrapper string) cmdCtx {
	if c.via == "" {
		c.via = wrapper
	} else {
		c.via += ", " + wrapper
	}
	c.depth++
	return c
}

// handler classifies a command whose name it owns; argv[0] is that name.
type handler func(w *walker, argv []Word, c cmdCtx)

// call walks a simple command: its assignments, its words, then what the
// command itself does.
func (w *walker) call(s *syntax.Stmt, c *syntax.CallExpr, d int) cwdState {
	for _, as := range c.Assigns {
		w.assign(as, len(c.Args) > 0, d)
	}
	if len(c.Args) == 0 {
		return w.cwd
	}
	argv := make([]Word, 0, len(c.Args))
	for _, word := range c.Args {
		v := w.word(word, d, true)
		argv = v.appendWords(argv)
	}
	return w.dispatch(argv, cmdCtx{src: partSource(w.src, s), stdinDoc: stdinIsDoc(s.Redirs), off: int(s.Pos().Offset()), via: w.via})
}

// stdinIsDoc reports a here-document or here-string on standard input.
func stdinIsDoc(redirs []*syntax.Redirect) bool {
	for _, r := range redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				return true
			}
		}
	}
	return false
}

// dispatch classifies one command and returns the directory state if it
// fails.
func (w *walker) dispatch(argv []Word, c cmdCtx) cwdState {
	before := w.cwd
	w.run(argv, c)
	if w.cwd.dead {
		return w.cwd
	}
	return before
}

func (w *walker) run(argv []Word, c cmdCtx) {
	if len(argv) == 0 {
		return
	}
	if c.depth > maxUnwrap {
		w.a.opaqueSrc(c.src, "too many nested wrappers")
		return
	}
	if argv[0].Dynamic {
		w.a.opaqueSrc(c.src, "command name is not a literal word: "+clip(argv[0].Text))
		return
	}
	name := argv[0].Text
	if !strings.ContainsAny(name, `/\`) {
		if h := builtinHandler(name); h != nil {
			h(w, argv, c)
			return
		}
	}
	key := baseName(name)
	if h := wrapperHandler(key); h != nil && trustedCmdPath(name) {
		h(w, argv, c)
		return
	}
	at := len(w.a.effects)
	defer w.afterTool(at, key, argv, c)
	w.exec(policyArgs(key, argv), c)
	if c.open && optionSensitive[key] && !hasDashDash(argv) {
		w.a.opaqueSrc(c.src, "arguments xargs appends could be options of "+key+" that run programs or choose what it writes")
	}
	if h := toolHandler(key); h != nil {
		h(w, argv, c)
	} else if spec := interpreterFor(key); spec != nil {
		w.interpreter(spec, argv, c)
	} else if reason, ok := alwaysOpaque[key]; ok {
		w.a.opaqueSrc(c.src, reason)
	}
}

// exec adds the Exec effect of argv.
func (w *walker) exec(argv []Word, c cmdCtx) {
	reason := "command"
	if c.via != "" {
		reason = "command run by " + c.via
	}
	w.a.add(Effect{Kind: Exec, Args: argv, OpenEnded: c.open, Reason: reason, Source: c.src})
}

// appendWords appends the words a shell word expands to.
func (v *wordVal) appendWords(out []Word) []Word {
	if lit, ok := v.literal(); ok {
		return append(out, Word{Text: lit})
	}
	if v.tooBig {
		return append(out, Word{Text: v.src, Dynamic: true})
	}
	for _, alt := range v.alts {
		out = append(out, altWord(alt, v.src, len(v.alts) == 1))
	}
	return out
}

// altWord is the Word of one brace alternative: literal text, a glob
// pattern, or (with expansions) the source when it is the only one.
func altWord(segs []seg, src string, only bool) Word {
	static, dynamic := true, false
	for _, s := range segs {
		if s.kind != segLit {
			static = false
		}
		if s.kind == segDyn {
			dynamic = true
		}
	}
	switch {
	case static:
		return Word{Text: joinLits(segs)}
	case !dynamic:
		return Word{Text: renderGlob(segs), Dynamic: true, Glob: true}
	case only:
		return Word{Text: src, Dynamic: true}
	}
	return Word{Text: renderRaw(segs), Dynamic: true}
}

// renderGlob writes a glob pattern, escaping literal glob characters.
func renderGlob(segs []seg) string {
	var b strings.Builder
	for _, s := range segs {
		switch s.kind {
		case segLit:
			for i := 0; i < len(s.text); i++ {
				if strings.IndexByte(`*?[\`, s.text[i]) >= 0 {
					b.WriteByte('\\')
				}
				b.WriteByte(s.text[i])
			}
		case segStar:
			if s.ext != "" {
				b.WriteString(s.text)
			} else {
				b.WriteByte('*')
			}
		case segQuest:
			b.WriteByte('?')
		case segClass:
			b.WriteString("[" + s.text + "]")
		}
	}
	return b.String()
}

// renderRaw writes an alternative with expansions in source form.
func renderRaw(segs []seg) string {
	var b strings.Builder
	for _, s := range segs {
		if s.kind == segClass {
			b.WriteString("[" + s.text + "]")
		} else {
			b.WriteString(s.text)
		}
	}
	return b.String()
}

// analyzeArgv classifies an argv run without a shell.
func (a *analyzer) analyzeArgv(argv []string) {
	src := clip(strings.Join(argv, " "))
	if len(argv) == 0 {
		a.opaqueSrc("", "empty command")
		return
	}
	total := 0
	for _, s := range argv {
		total += len(s)
		if bad, what := unsafeText(s); bad || strings.IndexByte(s, 0) >= 0 {
			a.opaqueSrc(src, "argument contains "+what)
		}
	}
	if total > MaxScriptBytes || len(argv) > MaxScriptBytes/2 {
		a.opaqueSrc(src, "command too large")
		return
	}
	w := &walker{a: a, src: src}
	words := make([]Word, len(argv))
	for i, s := range argv {
		words[i] = Word{Text: s}
		w.protectText(s, src)
	}
	w.run(words, cmdCtx{src: src, argvMode: true})
	w.finish()
}

// optionSensitive are tools with options that run programs or choose
// what they write: arguments of unknown value must not reach their option
// parser (xargs input, a leading glob).
var optionSensitive = map[string]bool{
	"sed": true, "gsed": true, "awk": true, "gawk": true, "mawk": true, "nawk": true, "find": true,
	"git": true, "rg": true, "tar": true, "bsdtar": true, "rsync": true, "man": true,
	"less": true, "sort": true, "make": true, "gmake": true, "npm": true, "pnpm": true,
	"yarn": true, "npx": true, "go": true, "gofmt": true, "cargo": true, "cp": true, "mv": true,
	"ln": true, "install": true, "curl": true, "wget": true, "sqlite3": true, "deno": true,
	"bat": true, "tree": true, "env": true, "xargs": true,
}

func hasDashDash(argv []Word) bool {
	for _, a := range argv[1:] {
		if a.Text == "--" && !a.Dynamic {
			return true
		}
	}
	return false
}
