package display

import "strings"

// QuoteArgv shows argv as a shell user would type it, so that argument
// boundaries are visible ("a b" is one argument): see QuoteArg. It does
// not escape; show the result through Escape or EscapeLine.
func QuoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = QuoteArg(a)
	}
	return strings.Join(q, " ")
}

// QuoteArg returns s unchanged when it is made only of letters, digits
// and -_./=:,+@% (ASCII), and in POSIX single quotes otherwise (an empty
// argument becomes a pair of quotes).
func QuoteArg(s string) string {
	if s != "" && !strings.ContainsFunc(s, needsQuote) {
		return s
	}
	return SingleQuote(s)
}

// SingleQuote puts s in POSIX single quotes, whatever it holds: inside
// them nothing is special but the quote itself, which is closed, escaped
// and opened again.
func SingleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func needsQuote(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("-_./=:,+@%", r))
}
