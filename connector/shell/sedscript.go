package shell

import "strings"

// sedScan is a scanner over a sed script that finds the commands that
// run programs (e, s///e), write files (w, W, s///w) or read files (r, R).
type sedScan struct {
	s      string
	i      int
	reads  []string
	danger string
}

// checkSed scans a script; danger is set when it runs or writes anything,
// or when the scanner does not understand it.
func checkSed(script string) (reads []string, danger string) {
	sc := sedScan{s: script}
	for sc.danger == "" && sc.next() {
		sc.command()
	}
	return sc.reads, sc.danger
}

// next skips separators and comments; false at the end.
func (sc *sedScan) next() bool {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', ';':
			sc.i++
		case '#':
			sc.restOfLine()
		default:
			return true
		}
	}
	return false
}

func (sc *sedScan) restOfLine() string {
	start := sc.i
	for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
		sc.i++
	}
	return sc.s[start:sc.i]
}

// untilSep reads a label or argument up to ; or a newline.
func (sc *sedScan) untilSep() {
	for sc.i < len(sc.s) && sc.s[sc.i] != '\n' && sc.s[sc.i] != ';' {
		sc.i++
	}
}

func (sc *sedScan) command() {
	sc.address()
	if sc.danger != "" || sc.i >= len(sc.s) {
		return
	}
	c := sc.s[sc.i]
	sc.i++
	switch {
	case strings.IndexByte("{}=dDgGhHnNpPxzF", c) >= 0:
	case strings.IndexByte("lLqQ:btTv", c) >= 0:
		sc.untilSep()
	case c == 'a' || c == 'i' || c == 'c':
		sc.text()
	case c == 'r' || c == 'R':
		sc.reads = append(sc.reads, strings.TrimSpace(sc.restOfLine()))
	case c == 'w' || c == 'W':
		sc.danger = "sed " + string(c) + " writes a file"
	case c == 'e':
		sc.danger = "sed e runs a command"
	case c == 's':
		sc.substitute()
	case c == 'y':
		sc.delimited(2)
	default:
		sc.danger = "sed command not understood: " + string(c)
	}
}

// text skips the text of a, i, c: to the end of the line, with
// backslash-newline continuing it.
func (sc *sedScan) text() {
	for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
		if sc.s[sc.i] == '\\' {
			sc.i++
		}
		sc.i++
	}
}

// address skips addr1[,addr2] and any !.
func (sc *sedScan) address() {
	for sc.i < len(sc.s) && sc.danger == "" {
		c := sc.s[sc.i]
		switch {
		case c >= '0' && c <= '9' || strings.IndexByte("$~+, \t!", c) >= 0:
			sc.i++
		case c == '/':
			sc.regex('/')
			sc.regexFlags()
		case c == '\\' && sc.i+1 < len(sc.s):
			sc.i++
			sc.regex(sc.s[sc.i])
			sc.regexFlags()
		default:
			return
		}
	}
}

func (sc *sedScan) regexFlags() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == 'I' || sc.s[sc.i] == 'M') {
		sc.i++
	}
}

// regex skips a delimited part that starts at the opening delimiter.
func (sc *sedScan) regex(delim byte) {
	sc.i++
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case '\\':
			sc.i += 2
			continue
		case delim:
			sc.i++
			return
		case '\n':
			if delim != '\n' {
				sc.danger = "sed script not understood (unterminated)"
				return
			}
		}
		sc.i++
	}
	sc.danger = "sed script not understood (unterminated)"
}

// delimited skips the parts of s or y after the command letter.
func (sc *sedScan) delimited(parts int) {
	if sc.i >= len(sc.s) || sc.s[sc.i] == '\n' || sc.s[sc.i] == '\\' {
		sc.danger = "sed script not understood"
		return
	}
	delim := sc.s[sc.i]
	sc.regex(delim)
	for k := 1; k < parts && sc.danger == ""; k++ {
		sc.i-- // the closing delimiter opens the next part
		sc.regex(delim)
	}
}

func (sc *sedScan) substitute() {
	sc.delimited(2)
	for sc.danger == "" && sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == 'e':
			sc.danger = "sed s///e runs the pattern space as a command"
		case c == 'w':
			sc.danger = "sed s///w writes a file"
		case c >= '0' && c <= '9' || strings.IndexByte("gpiImM", c) >= 0:
			sc.i++
		case strings.IndexByte("; \t\n}#", c) >= 0:
			return
		default:
			sc.danger = "sed s flag not understood: " + string(c)
		}
	}
}
