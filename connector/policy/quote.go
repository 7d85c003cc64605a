package policy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// quoteWord quotes a word so that both a shell and a shell pattern read
// it back as the same single literal word: bare when it is made of safe
// characters, in single quotes otherwise, and as $'...' when it holds
// control, invisible or invalid characters (which patterns cannot spell).
func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	if isSafeWord(s) {
		return s
	}
	if !printableWord(s) {
		return ansiC(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func isSafeWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("_@%+=:,./-", c) >= 0) {
			return false
		}
	}
	return true
}

func printableWord(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' || isIgnorable(r) {
			return false
		}
	}
	return true
}

// ansiC writes s as a bash $'...' string with every unusual byte escaped.
func ansiC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x80 && unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsPrint(r) && !isIgnorable(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// quoteArgv renders a command's words for the human: literal words
// quoted, dynamic words in their source form, "…" when xargs or find
// append more.
func quoteArgv(args []shell.Word, openEnded bool) string {
	var b strings.Builder
	for i, w := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.Dynamic {
			b.WriteString(w.Text)
		} else {
			b.WriteString(quoteWord(w.Text))
		}
	}
	if openEnded {
		b.WriteString(" …")
	}
	return b.String()
}
