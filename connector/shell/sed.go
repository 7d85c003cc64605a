package shell

import "strings"

// sedProg is what a GNU sed program does besides editing its input: the
// files it reads (r, R), the files it writes (w, W, s///w) and why it
// must escalate (e, s///e, or anything not understood).
type sedProg struct {
	reads  []string
	writes []string
	danger string
}

// sedParser follows GNU sed's compile.c (compile_program and the
// functions it calls) character by character, so that a command hidden
// where a looser reader sees a label, a file name or text is found. It
// does not check what only makes sed refuse the program (bad regexes,
// y lengths), except where a refusal is the sole reading it knows.
type sedParser struct {
	s      string
	i      int
	blocks int
	prog   sedProg
}

const sedEOF = -1

// parseSed parses script (the -e scripts joined with newlines, as sed
// joins them).
func parseSed(script string) sedProg {
	p := sedParser{s: script}
	for p.prog.danger == "" && p.command() {
	}
	if p.prog.danger == "" && p.blocks != 0 {
		p.fail("unmatched {")
	}
	return p.prog
}

func (p *sedParser) inchar() int {
	if p.i >= len(p.s) {
		return sedEOF
	}
	c := p.s[p.i]
	p.i++
	return int(c)
}

func (p *sedParser) savchar(c int) {
	if c != sedEOF {
		p.i--
	}
}

func isSedBlank(c int) bool { return c == ' ' || c == '\t' }

func isSedSpace(c int) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isSedDigit(c int) bool { return c >= '0' && c <= '9' }

func (p *sedParser) inNonblank() int {
	c := p.inchar()
	for isSedBlank(c) {
		c = p.inchar()
	}
	return c
}

func (p *sedParser) fail(why string) {
	if p.prog.danger == "" {
		p.prog.danger = "sed program not understood: " + why
	}
}

// command parses one command with its addresses; false at the end.
func (p *sedParser) command() bool {
	c := p.inchar()
	for c == ';' || isSedSpace(c) {
		c = p.inchar()
	}
	if c == sedEOF {
		return false
	}
	addr := p.address(c)
	if addr {
		c = p.inNonblank()
		if c == ',' {
			if !p.address(p.inNonblank()) {
				p.fail("unexpected ,")
				return false
			}
			c = p.inNonblank()
		}
	}
	if c == '!' {
		if c = p.inNonblank(); c == '!' {
			p.fail("multiple !")
			return false
		}
	}
	if p.prog.danger == "" {
		p.letter(c, addr)
	}
	return p.prog.danger == ""
}

// address reads an address starting with c; false (nothing read) when c
// does not start one.
func (p *sedParser) address(c int) bool {
	switch {
	case c == '/' || c == '\\':
		if c == '\\' {
			c = p.inchar()
		}
		if !p.matchSlash(c, true) {
			p.fail("unterminated address regex")
			return true
		}
		c = p.inNonblank()
		for c == 'I' || c == 'M' {
			c = p.inNonblank()
		}
		p.savchar(c)
	case isSedDigit(c):
		p.integer(c)
		if c = p.inNonblank(); c == '~' {
			p.integer(p.inNonblank())
		} else {
			p.savchar(c)
		}
	case c == '+' || c == '~':
		p.integer(p.inNonblank())
	case c == '$':
	default:
		return false
	}
	return true
}

func (p *sedParser) integer(c int) {
	for isSedDigit(c) {
		c = p.inchar()
	}
	p.savchar(c)
}

// letter parses the command c and its arguments.
func (p *sedParser) letter(c int, addr bool) {
	switch {
	case c == '#':
		if addr {
			p.fail("comments don't accept any addresses")
		}
		for c != sedEOF && c != '\n' {
			c = p.inchar()
		}
	case c == 'v' || c == ':' || c == 'b' || c == 't' || c == 'T':
		p.label(c, addr)
	case c == '{':
		p.blocks++
	case c == '}':
		if p.blocks == 0 || addr {
			p.fail("unexpected }")
			return
		}
		p.blocks--
		p.endOfCmd()
	case c == 'e':
		p.prog.danger = "sed e runs a command"
	case c == 'a' || c == 'i' || c == 'c':
		p.text()
	case c == 'q' || c == 'Q' || c == 'l' || c == 'L':
		c = p.inNonblank()
		if isSedDigit(c) {
			p.integer(c)
		} else {
			p.savchar(c)
		}
		p.endOfCmd()
	case c >= 0 && strings.IndexByte("=dDFgGhHnNpPzx", byte(c)) >= 0:
		p.endOfCmd()
	case c == 'r' || c == 'R':
		p.prog.reads = append(p.prog.reads, p.filename())
	case c == 'w' || c == 'W':
		p.prog.writes = append(p.prog.writes, p.filename())
	case c == 's':
		p.substitute()
	case c == 'y':
		slash := p.inchar()
		// y/src/dst/: the source, then the destination (matchSlash consumes).
		src := p.matchSlash(slash, false)
		if !src || !p.matchSlash(slash, false) {
			p.fail("unterminated y command")
			return
		}
		p.endOfCmd()
	case c == sedEOF:
		p.fail("missing command")
	default:
		p.fail("unknown command " + string(rune(c)))
	}
}

// label reads the label of :, b, t, T (or v's version). GNU sed 4.3 and
// later end it at a blank, ;, } or #, and go on parsing commands right
// after it (":a w /tmp/x" writes); older seds end it only at ; or a
// newline, POSIX only at a newline. So the text between those ends must
// hold nothing but blanks and }: otherwise one sed runs what another
// reads as a label.
func (p *sedParser) label(c int, addr bool) {
	if c == ':' && addr {
		p.fail(": doesn't want any addresses")
		return
	}
	cmd, n := c, 0
	for c = p.inNonblank(); c != sedEOF && c != '\n' && !isSedBlank(c) && c != ';' && c != '}' && c != '#'; c = p.inchar() {
		n++
	}
	p.savchar(c)
	if cmd == ':' && n == 0 {
		p.fail(": lacks a label")
		return
	}
	rest := p.s[p.i:]
	if k := strings.IndexAny(rest, ";\n"); k >= 0 {
		rest = rest[:k]
	}
	if strings.Trim(rest, " \t}") != "" {
		p.prog.danger = "sed label followed by more text (one sed reads it as part of the label, another as commands)"
	}
}

// endOfCmd: a command without arguments ends at a comment, }, newline,
// ; or the end.
func (p *sedParser) endOfCmd() {
	switch c := p.inNonblank(); c {
	case '}', '#':
		p.savchar(c)
	case sedEOF, '\n', ';':
	default:
		p.fail("extra characters after command")
	}
}

// text skips the text of a, i and c (GNU's one-line form or a\ and the
// following lines): to an unescaped newline.
func (p *sedParser) text() {
	c := p.inNonblank()
	if c == sedEOF {
		p.fail("expected \\ after a, c or i")
		return
	}
	if c == '\\' {
		// a\TEXT or a\ and TEXT on the next line: the character after
		// the backslash is text (or the newline before it), never an
		// escape.
		if p.inchar() == sedEOF {
			return
		}
		c = p.inchar()
	}
	for c != sedEOF && c != '\n' {
		if c == '\\' {
			p.inchar()
		}
		c = p.inchar()
	}
}

// filename reads the file name of r, R, w, W and s///w: everything to
// the end of the line, ; and } included, after leading blanks.
func (p *sedParser) filename() string {
	c := p.inNonblank()
	start := p.i - 1
	if c == sedEOF {
		p.fail("missing filename in r/R/w/W commands")
		return ""
	}
	for c != sedEOF && c != '\n' {
		c = p.inchar()
	}
	end := min(p.i, len(p.s))
	if c == '\n' {
		end--
	}
	name := p.s[start:end]
	if name == "" {
		p.fail("missing filename in r/R/w/W commands")
	}
	return name
}

// substitute parses s/RE/REPL/FLAGS.
func (p *sedParser) substitute() {
	slash := p.inchar()
	if !p.matchSlash(slash, true) || !p.matchSlash(slash, false) {
		p.fail("unterminated s command")
		return
	}
	for {
		switch c := p.inNonblank(); {
		case c == 'e':
			p.prog.danger = "sed s///e runs the pattern space as a command"
			return
		case c == 'w':
			p.prog.writes = append(p.prog.writes, p.filename())
			return
		case c == 'i' || c == 'I' || c == 'm' || c == 'M' || c == 'p' || c == 'g':
		case isSedDigit(c):
			p.integer(c)
		case c == '}' || c == '#':
			p.savchar(c)
			return
		case c == sedEOF || c == '\n' || c == ';':
			return
		case c == '\r' && p.inchar() == '\n':
			return
		default:
			p.fail("unknown option to s")
			return
		}
	}
}

// matchSlash reads a delimited regex or replacement, the opening
// delimiter already read; false when it does not end on its line.
func (p *sedParser) matchSlash(slash int, regex bool) bool {
	if slash == sedEOF || slash == '\n' || slash >= 0x80 {
		return false
	}
	for {
		c := p.inchar()
		switch {
		case c == sedEOF || c == '\n':
			return false
		case c == slash:
			return true
		case c == '\\':
			if p.inchar() == sedEOF {
				return false
			}
		case c == '[' && regex:
			if p.charClass() != ']' {
				return false
			}
		}
	}
}

// charClass skips a bracket expression after its [, as snarf_char_class
// does ([:alpha:], [.x.] and [=x=] may hold a ]); it returns the
// character it stopped at.
func (p *sedParser) charClass() int {
	c := p.inchar()
	if c == '^' {
		c = p.inchar()
	}
	if c == ']' {
		c = p.inchar()
	}
	state, delim := 0, 0
	for ; ; c = p.inchar() {
		switch {
		case c == sedEOF || c == '\n':
			return c
		case c == '.' || c == ':' || c == '=':
			if state == 1 {
				delim, state = c, 2
				continue
			}
			if state == 2 && c == delim {
				state = 3
				continue
			}
		case c == '[':
			if state == 0 {
				state = 1
			}
			continue
		case c == ']':
			if state == 0 || state == 1 {
				return c
			}
			if state == 3 {
				state = 0
			}
		}
		state &^= 1
	}
}
