package shell

// awkScan finds what an awk program does beyond reading its input:
// system(), pipes (|, |&), output redirection after print/printf, and
// @load/@include. Strings and regular expressions are skipped.
type awkScan struct {
	s        string
	i        int
	depth    int  // parenthesis depth
	inPrint  bool // inside a print or printf statement
	printAt  int  // depth at which it started
	regexOK  bool // a / here starts a regular expression
	lastWord string
	afterGL  bool // after getline [var], where < reads a file
	danger   string
	getline  bool // getline < file
}

// checkAwk returns why a program escalates ("" if it does not) and
// whether it reads files with getline <.
func checkAwk(prog string) (danger string, getline bool) {
	sc := awkScan{s: prog, regexOK: true}
	for sc.i < len(sc.s) && sc.danger == "" {
		sc.step()
	}
	return sc.danger, sc.getline
}

func (sc *awkScan) step() {
	c := sc.s[sc.i]
	switch {
	case c == '"':
		sc.skipString()
		sc.regexOK = false
	case c == '#':
		for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
			sc.i++
		}
	case c == '/' && sc.regexOK:
		sc.skipRegex()
		sc.regexOK = false
	case c == '\\':
		sc.i += 2
	case isLetter(c) || c == '_' || c == '@':
		sc.word()
	case c >= '0' && c <= '9' || c == '.':
		sc.i++
		sc.regexOK = false
	default:
		sc.operator(c)
	}
}

func (sc *awkScan) operator(c byte) {
	sc.i++
	sc.regexOK = true
	switch c {
	case '|':
		if sc.i < len(sc.s) && sc.s[sc.i] == '|' {
			sc.i++
			return
		}
		sc.danger = "pipes to or from a command"
	case '>':
		if sc.inPrint && sc.depth <= sc.printAt {
			sc.danger = "redirects output to a file"
		}
	case '<':
		if sc.afterGL {
			sc.getline = true
		}
	case '(':
		sc.depth++
	case ')':
		sc.depth--
		sc.regexOK = false
	case ';', '\n', '{', '}':
		sc.inPrint = false
	case ' ', '\t':
		return // keeps afterGL for "getline var <"
	}
	sc.lastWord = ""
	sc.afterGL = false
}

func (sc *awkScan) word() {
	start := sc.i
	sc.i++
	for sc.i < len(sc.s) && (isLetter(sc.s[sc.i]) || sc.s[sc.i] == '_' || sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9') {
		sc.i++
	}
	w := sc.s[start:sc.i]
	sc.lastWord = w
	sc.regexOK = false
	switch w {
	case "system":
		sc.danger = "calls system()"
	case "@load", "@include":
		sc.danger = "uses " + w
	case "getline":
		sc.afterGL = true
	case "print", "printf":
		sc.inPrint, sc.printAt = true, sc.depth
		sc.regexOK = true
	case "return", "in", "case":
		sc.regexOK = true
	}
}

func (sc *awkScan) skipString() {
	for sc.i++; sc.i < len(sc.s); sc.i++ {
		switch sc.s[sc.i] {
		case '\\':
			sc.i++
		case '"':
			sc.i++
			return
		}
	}
}

// skipRegex skips /.../, honouring escapes and bracket expressions.
func (sc *awkScan) skipRegex() {
	inClass := false
	for sc.i++; sc.i < len(sc.s); sc.i++ {
		switch c := sc.s[sc.i]; {
		case c == '\\':
			sc.i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			sc.i++
			return
		case c == '\n':
			sc.danger = "is not understood (unterminated regular expression)"
			return
		}
	}
}
