package hookd

import (
	"fmt"
	"strings"
)

// ParseExports reads the output of bash's `export -p` (bash 5: one
// `declare -FLAGS NAME="VALUE"` per variable, or `export NAME="VALUE"` in
// POSIX mode) into NAME=VALUE entries, in order. A value is quoted as bash
// quotes it (bash 5.2, checked against the real one in the tests): in
// double quotes with \ before " \ $ and `, or, when it holds
// a byte that is not printable, in $'...' with C escapes. A variable
// exported without a value is not in the environment and is left out, and
// so is an array (bash never exports one). Anything else is an error: the
// shell then jails the command itself, with its real environment, instead
// of running it with one read wrong.
func ParseExports(s string) ([]string, error) {
	var env []string
	for len(s) > 0 {
		line, rest, err := exportLine(s)
		if err != nil {
			return nil, err
		}
		if line != "" {
			env = append(env, line)
		}
		s = rest
	}
	return env, nil
}

// exportLine reads one variable from s: its NAME=VALUE entry ("" for one
// left out) and what follows its line.
func exportLine(s string) (entry, rest string, err error) {
	array := false
	switch {
	case strings.HasPrefix(s, "export -"): // POSIX mode, an array
		flags, after, ok := strings.Cut(s[len("export -"):], " ")
		if !ok || strings.Trim(flags, "aA") != "" {
			return "", "", fmt.Errorf("%w: export -p: export flags %q", ErrRequest, flags)
		}
		array, s = true, after
	case strings.HasPrefix(s, "export "):
		s = s[len("export "):]
	case strings.HasPrefix(s, "declare -"):
		flags, after, ok := strings.Cut(s[len("declare -"):], " ")
		if !ok || !strings.Contains(flags, "x") || strings.Trim(flags, "aAfFgiIlnrtux") != "" {
			return "", "", fmt.Errorf("%w: export -p: declare flags %q", ErrRequest, flags)
		}
		array = strings.ContainsAny(flags, "aA")
		s = after
	default:
		return "", "", fmt.Errorf("%w: export -p: a line starts with %q", ErrRequest, head(s))
	}
	n := 0
	for n < len(s) && (s[n] == '_' || 'a' <= s[n]|0x20 && s[n]|0x20 <= 'z' || n > 0 && '0' <= s[n] && s[n] <= '9') {
		n++
	}
	name := s[:n]
	if name == "" {
		return "", "", fmt.Errorf("%w: export -p: a variable without a name", ErrRequest)
	}
	s = s[n:]
	if strings.HasPrefix(s, "\n") {
		return "", s[1:], nil // exported, never set
	}
	if !strings.HasPrefix(s, "=") {
		return "", "", fmt.Errorf("%w: export -p: %s followed by %q", ErrRequest, name, head(s))
	}
	s = s[1:]
	var value strings.Builder
	for {
		var word string
		switch {
		case strings.HasPrefix(s, "\n"):
			if array {
				return "", s[1:], nil
			}
			return name + "=" + value.String(), s[1:], nil
		case strings.HasPrefix(s, `"`):
			word, s, err = doubleQuoted(s[1:])
		case strings.HasPrefix(s, "$'"):
			word, s, err = ansiC(s[2:])
		case array && strings.HasPrefix(s, "'"):
			var ok bool
			word, s, ok = strings.Cut(s[1:], "'")
			if !ok {
				err = fmt.Errorf("%w: export -p: an unterminated quote", ErrRequest)
			}
		case array && s != "" && s[0] != '"' && s[0] != '$':
			word, s = s[:1], s[1:] // an array's syntax and bare keys: skipped with it
		default:
			return "", "", fmt.Errorf("%w: export -p: %s's value goes on with %q", ErrRequest, name, head(s))
		}
		if err != nil {
			return "", "", err
		}
		value.WriteString(word)
	}
}

// doubleQuoted reads a double-quoted word up to its closing quote (s
// starts after the opening one): a backslash escapes ", \, $, ` and a
// newline, and is kept before anything else.
func doubleQuoted(s string) (word, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
				continue
			}
			b.WriteByte(c)
		case '$', '`':
			return "", "", fmt.Errorf("%w: export -p: an unescaped %c in a value", ErrRequest, c)
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("%w: export -p: an unterminated quote", ErrRequest)
}

// ansiC reads a $'...' word up to its closing quote (s starts after the
// opening $'), with the escapes bash writes there (\a \b \e \E \f \n \r
// \t \v \\ \' \" \? and \NNN octal, \xHH hex); any other is an error.
func ansiC(s string) (word, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			return b.String(), s[i+1:], nil
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break
		}
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := 0, 0
			for n < 3 && i+n < len(s) && '0' <= s[i+n] && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			i += n - 1
			if v == 0 || v > 0xff {
				return "", "", fmt.Errorf("%w: export -p: octal escape \\%s", ErrRequest, s[i-n+1:i+1])
			}
			b.WriteByte(byte(v))
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1+n < len(s) && hexDigit(s[i+1+n]) >= 0 {
				v = v*16 + hexDigit(s[i+1+n])
				n++
			}
			if n == 0 || v == 0 {
				return "", "", fmt.Errorf("%w: export -p: hex escape", ErrRequest)
			}
			i += n
			b.WriteByte(byte(v))
		default:
			return "", "", fmt.Errorf("%w: export -p: escape \\%c", ErrRequest, e)
		}
	}
	return "", "", fmt.Errorf("%w: export -p: an unterminated $' quote", ErrRequest)
}

func hexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c|0x20 && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}

// head is the start of s, for an error message.
func head(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}
