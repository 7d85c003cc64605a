package shell

import "strings"

// awkProg is what an awk program does besides reading its input and
// printing to standard output.
type awkProg struct {
	danger  string   // why it must escalate ("" when it need not)
	writes  []string // print > "FILE" with a literal file name
	reads   []string // getline < "FILE" with a literal file name
	getline bool     // getline < EXPR: reads a file named at run time
}

// awkTok is one token of an awk program.
type awkTok struct {
	kind byte   // one of the awk* kinds below
	text string // the token as written (a string's or regex's contents)
	ctl  bool   // a ) that closes the condition of if, while, for, switch
}

const (
	awkEOF     = 0
	awkNewline = '\n'
	awkName    = 'a' // identifier, keyword or builtin function
	awkNumber  = '0'
	awkString  = '"'
	awkRegex   = '/'
	awkOp      = 'o' // an operator; text holds it
)

// awkLexer splits a program into tokens the way gawk, mawk and busybox
// awk agree on, and refuses what they do not agree on. Whether a / starts
// a regular expression or divides depends on the token before it (after
// a name, number, string, ) or ] it divides); where awks differ or the
// grammar is ambiguous, the program escalates.
type awkLexer struct {
	s       string
	i       int
	prev    awkTok
	parens  []bool // open ( and [; true for the ( of if, while, for, switch
	ctlNext bool   // the next ( opens a control condition
	danger  string
}

func (l *awkLexer) fail(why string) {
	if l.danger == "" {
		l.danger = why
	}
}

// regexOK reports whether a / here starts a regular expression.
func (l *awkLexer) regexOK() (ok, ambiguous bool) {
	p := l.prev
	switch p.kind {
	case awkNumber, awkString, awkRegex:
		return false, false
	case awkName:
		switch p.text {
		case "print", "printf", "return", "case", "do", "else":
			return true, false
		}
		if awkKeywords[p.text] {
			return false, true // exit /x/, length /x/, getline /x/: awks differ
		}
		return false, false
	case awkOp:
		switch p.text {
		case "]":
			return false, false
		case ")":
			return p.ctl, false
		case "++", "--", "$":
			return false, true
		}
	}
	return true, false
}

// awkKeywords are the reserved words and builtin functions of gawk, mawk
// and busybox awk: after one of them a / is not plainly a division.
var awkKeywords = map[string]bool{
	"BEGIN": true, "END": true, "BEGINFILE": true, "ENDFILE": true, "function": true, "func": true,
	"if": true, "while": true, "for": true, "break": true, "continue": true, "next": true,
	"nextfile": true, "exit": true, "delete": true, "in": true, "getline": true, "switch": true,
	"default": true, "length": true, "substr": true, "index": true, "split": true, "sub": true,
	"gsub": true, "match": true, "sprintf": true, "sin": true, "cos": true, "atan2": true,
	"exp": true, "log": true, "sqrt": true, "int": true, "rand": true, "srand": true,
	"tolower": true, "toupper": true, "system": true, "close": true, "fflush": true, "gensub": true,
	"strftime": true, "systime": true, "mktime": true, "and": true, "or": true, "xor": true,
	"lshift": true, "rshift": true, "compl": true, "asort": true, "asorti": true, "patsplit": true,
	"isarray": true, "typeof": true, "strtonum": true, "mkbool": true,
}

// next returns the next token. After the ) of "if (...)" a statement
// starts, where / starts a regular expression.
func (l *awkLexer) next() awkTok {
	t := l.scan()
	switch {
	case t.kind == awkName:
		switch t.text {
		case "if", "while", "for", "switch":
			l.ctlNext = true
		}
	case t.kind != awkOp:
	case t.text == "(" || t.text == "[":
		l.parens = append(l.parens, l.ctlNext && t.text == "(")
		l.ctlNext = false
	case t.text == ")" || t.text == "]":
		if n := len(l.parens); n > 0 {
			t.ctl = l.parens[n-1]
			l.parens = l.parens[:n-1]
		} else {
			l.fail("has an unbalanced " + t.text)
		}
	}
	l.prev = t
	return t
}

func (l *awkLexer) scan() awkTok {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.i++
		case c == '\\' && l.i+1 < len(l.s) && l.s[l.i+1] == '\n':
			l.i += 2
		case c == '\\' && l.i+2 < len(l.s) && l.s[l.i+1] == '\r' && l.s[l.i+2] == '\n':
			l.i += 3
		case c == '#':
			for l.i < len(l.s) && l.s[l.i] != '\n' {
				l.i++
			}
		default:
			return l.token(c)
		}
	}
	return awkTok{kind: awkEOF}
}

func (l *awkLexer) token(c byte) awkTok {
	switch {
	case c == '\n':
		l.i++
		return awkTok{kind: awkNewline}
	case c == '"':
		return l.str()
	case c == '/':
		ok, amb := l.regexOK()
		if amb {
			l.fail("has a / whose meaning (division or regular expression) awks read differently")
		}
		if ok {
			return l.regex()
		}
	case isLetter(c) || c == '_':
		start := l.i
		for l.i < len(l.s) && (isLetter(l.s[l.i]) || l.s[l.i] == '_' || l.s[l.i] >= '0' && l.s[l.i] <= '9') {
			l.i++
		}
		return awkTok{kind: awkName, text: l.s[start:l.i]}
	case c >= '0' && c <= '9' || c == '.' && l.i+1 < len(l.s) && l.s[l.i+1] >= '0' && l.s[l.i+1] <= '9':
		return l.number()
	}
	return l.operator()
}

// number reads digits, dots and an exponent. A letter right after it
// ("1system(...)", "0x1F") is split differently by awks (gawk reads hex
// constants, mawk concatenates): the program escalates.
func (l *awkLexer) number() awkTok {
	start := l.i
	isDigit := func(k int) bool { return k < len(l.s) && l.s[k] >= '0' && l.s[k] <= '9' }
	for l.i < len(l.s) && (isDigit(l.i) || l.s[l.i] == '.') {
		l.i++
	}
	if l.i < len(l.s) && (l.s[l.i] == 'e' || l.s[l.i] == 'E') {
		switch {
		case isDigit(l.i + 1):
			l.i++
		case l.i+1 < len(l.s) && (l.s[l.i+1] == '+' || l.s[l.i+1] == '-') && isDigit(l.i+2):
			l.i += 2
		}
		for isDigit(l.i) {
			l.i++
		}
	}
	if l.i < len(l.s) && (isLetter(l.s[l.i]) || l.s[l.i] == '_') {
		l.fail("has a number followed by a letter, which awks split differently")
	}
	return awkTok{kind: awkNumber, text: l.s[start:l.i]}
}

// awkOps are awk's operators, longest first.
var awkOps = []string{
	"**=", "|&", "||", "&&", ">>", "==", "<=", ">=", "!=", "!~", "++", "--", "+=", "-=", "*=", "/=",
	"%=", "^=", "**", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!",
	">", "<", "|", "?", ":", "~", "=", "$",
}

func (l *awkLexer) operator() awkTok {
	for _, op := range awkOps {
		if strings.HasPrefix(l.s[l.i:], op) {
			l.i += len(op)
			return awkTok{kind: awkOp, text: op}
		}
	}
	l.fail("has a character awk does not read: " + clip(l.s[l.i:l.i+1]))
	l.i = len(l.s)
	return awkTok{kind: awkEOF}
}

// str reads a string literal; text is its contents with escapes kept,
// and "" with danger set when it does not end on its line.
func (l *awkLexer) str() awkTok {
	start := l.i + 1
	for l.i++; l.i < len(l.s); l.i++ {
		switch l.s[l.i] {
		case '\\':
			l.i++
		case '\n':
			l.fail("has a string that does not end on its line")
			return awkTok{kind: awkEOF}
		case '"':
			l.i++
			return awkTok{kind: awkString, text: l.s[start : l.i-1]}
		}
	}
	l.fail("has a string that does not end")
	return awkTok{kind: awkEOF}
}

// regex reads /.../. gawk lets a / stand unescaped in a bracket
// expression, busybox awk ends the regex there: such a regex escalates.
func (l *awkLexer) regex() awkTok {
	start := l.i + 1
	inClass := false
	for l.i++; l.i < len(l.s); l.i++ {
		switch c := l.s[l.i]; {
		case c == '\\':
			l.i++
		case c == '\n':
			l.fail("has a regular expression that does not end on its line")
			return awkTok{kind: awkEOF}
		case c == '[' && inClass && l.i+1 < len(l.s) && strings.IndexByte(":.=", l.s[l.i+1]) >= 0:
			// [:alpha:], [.x.], [=x=]: a ] inside does not end the class.
			end := strings.Index(l.s[l.i+2:], l.s[l.i+1:l.i+2]+"]")
			if end < 0 || strings.IndexByte(l.s[l.i+2:l.i+2+end], '\n') >= 0 {
				l.fail("has a bracket expression that does not end")
				return awkTok{kind: awkEOF}
			}
			if strings.IndexByte(l.s[l.i+2:l.i+2+end], '/') >= 0 {
				l.fail("has a / inside a bracket expression, which awks read differently")
				return awkTok{kind: awkEOF}
			}
			l.i += 2 + end + 1
		case c == '[' && !inClass:
			inClass = true
			if l.i+1 < len(l.s) && l.s[l.i+1] == '^' {
				l.i++
			}
			if l.i+1 < len(l.s) && l.s[l.i+1] == ']' {
				l.i++
			}
		case c == ']':
			inClass = false
		case c == '/' && inClass:
			l.fail("has a / inside a bracket expression, which awks read differently")
			return awkTok{kind: awkEOF}
		case c == '/':
			l.i++
			return awkTok{kind: awkRegex, text: l.s[start : l.i-1]}
		}
	}
	l.fail("has a regular expression that does not end")
	return awkTok{kind: awkEOF}
}

// parseAwk finds in an awk program what it does beyond reading its input
// and writing standard output.
func parseAwk(prog string) awkProg {
	var p awkProg
	l := awkLexer{s: prog}
	sc := awkScan{l: &l, p: &p, printDepth: -1}
	for l.danger == "" && p.danger == "" && sc.step() {
	}
	if p.danger == "" && l.danger != "" {
		p.danger = l.danger
	}
	if p.danger == "" && len(l.parens) > 0 {
		p.danger = "has an unbalanced ( or ["
	}
	return p
}

// awkScan follows statements: where a print or printf statement runs
// (its > and >> at its own nesting level redirect output) and what
// getline reads.
type awkScan struct {
	l          *awkLexer
	p          *awkProg
	printDepth int // nesting level of the print statement; -1 outside one
	getline    bool
	before     awkTok // the token before the name being scanned
}

// awkDanger are names whose mere use escalates.
var awkDanger = map[string]string{
	"system":   "calls system()",
	"ARGV":     "uses ARGV, which chooses the files awk reads",
	"ARGC":     "uses ARGC, which chooses the files awk reads",
	"ENVIRON":  "reads the environment (ENVIRON), where secrets live",
	"PROCINFO": "uses PROCINFO",
	"SYMTAB":   "uses SYMTAB, which reaches any variable",
	"FUNCTAB":  "uses FUNCTAB, which reaches any function",
}

func (sc *awkScan) step() bool {
	prev := sc.l.prev
	t := sc.l.next()
	depth := len(sc.l.parens)
	switch t.kind {
	case awkEOF:
		return false
	case awkName:
		sc.before = prev
		sc.name(t.text, depth)
	case awkNewline:
		if sc.printDepth == depth && !awkContinues(prev) {
			sc.printDepth = -1
		}
	case awkOp:
		sc.op(t.text, depth)
	}
	return true
}

func (sc *awkScan) name(n string, depth int) {
	if n == "ENVIRON" && sc.plainEnviron() {
		return
	}
	if why, ok := awkDanger[n]; ok {
		sc.p.danger = why
		return
	}
	switch n {
	case "print", "printf":
		if sc.printDepth < 0 {
			sc.printDepth = depth
		}
	case "getline":
		sc.getline = true
	}
}

func (sc *awkScan) op(op string, depth int) {
	switch op {
	case "|", "|&":
		sc.p.danger = "pipes to or from a command"
	case ";", "{", "}":
		sc.printDepth = -1
	case ")", "]":
		if depth < sc.printDepth {
			sc.printDepth = -1
		}
	case ">", ">>":
		if sc.printDepth == depth {
			sc.redirect()
		}
	case "<":
		if sc.getline {
			sc.input()
		}
	}
}

// awkContinues reports a token after which a newline does not end the
// statement: awks allow one after , { && || do else, gawk after ? and
// :, and after any other operator a line break at most makes the program
// fail, so the print statement is taken to go on.
func awkContinues(t awkTok) bool {
	switch {
	case t.kind == awkOp:
		return t.text != ")" && t.text != "]" && t.text != "++" && t.text != "--"
	case t.kind == awkName:
		return t.text == "do" || t.text == "else"
	}
	return false
}

// redirect: print ... > "FILE" (a literal name, then the statement's
// end) writes FILE; any other target escalates.
func (sc *awkScan) redirect() {
	if name, ok := sc.literalOperand(); ok {
		sc.p.writes = append(sc.p.writes, name)
		return
	}
	sc.p.danger = "redirects output to a file named by an expression"
}

// input: getline [VAR] < "FILE" reads FILE; with an expression, a file
// named at run time.
func (sc *awkScan) input() {
	if name, ok := sc.literalOperand(); ok {
		sc.p.reads = append(sc.p.reads, name)
		return
	}
	sc.p.getline = true
}

// literalOperand peeks at the tokens after a redirection: a string
// without escapes, then one that ends the expression (so that no
// concatenation can extend the name).
func (sc *awkScan) literalOperand() (string, bool) {
	peek := *sc.l
	peek.parens = append([]bool(nil), sc.l.parens...)
	s := peek.next()
	if s.kind != awkString || strings.IndexByte(s.text, '\\') >= 0 || s.text == "" {
		return "", false
	}
	switch e := peek.next(); {
	case e.kind == awkEOF && peek.danger == "", e.kind == awkNewline:
	case e.kind == awkOp && (e.text == ";" || e.text == "}" || e.text == ")"):
	default:
		return "", false
	}
	return s.text, true
}
