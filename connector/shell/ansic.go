package shell

import (
	"strconv"
	"unicode/utf8"
)

// decodeANSIC decodes the body of a $'...' string as bash does. A NUL
// ends the string.
func decodeANSIC(s string) string {
	if !containsByte(s, '\\') {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			out = append(out, s[i])
			continue
		}
		var n int
		out, n = decodeEscape(out, s[i+1:])
		i += n
		if k := indexNUL(out); k >= 0 {
			return string(out[:k])
		}
	}
	return string(out)
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

var simpleEscapes = map[byte]byte{
	'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': '\n', 'r': '\r',
	't': '\t', 'v': 11, '\\': '\\', '\'': '\'', '"': '"', '?': '?',
}

// decodeEscape decodes the escape after a backslash at the start of s,
// appending to out; it returns how many bytes of s it used.
func decodeEscape(out []byte, s string) ([]byte, int) {
	c := s[0]
	if v, ok := simpleEscapes[c]; ok {
		return append(out, v), 1
	}
	switch {
	case c >= '0' && c <= '7':
		v, n := parseDigits(s, 0, 3, 8)
		return append(out, byte(v)), n
	case c == 'x':
		return numEscape(out, s, 2, false)
	case c == 'u':
		return numEscape(out, s, 4, true)
	case c == 'U':
		return numEscape(out, s, 8, true)
	case c == 'c' && len(s) > 1:
		return append(out, s[1]&0x1f), 2
	}
	return append(out, '\\', c), 1
}

// numEscape decodes \xHH, \uHHHH or \UHHHHHHHH.
func numEscape(out []byte, s string, maxDigits int, asRune bool) ([]byte, int) {
	v, n := parseDigits(s, 1, maxDigits, 16)
	if n == 1 {
		return append(out, '\\', s[0]), 1
	}
	if !asRune {
		return append(out, byte(v)), n
	}
	if v > utf8.MaxRune {
		v = utf8.RuneError
	}
	return utf8.AppendRune(out, rune(v)), n
}

// parseDigits reads up to maxDigits digits of base from s[start:]; it
// returns the value and the index after the last digit.
func parseDigits(s string, start, maxDigits, base int) (int64, int) {
	end := start
	for end < len(s) && end-start < maxDigits && isDigit(s[end], base) {
		end++
	}
	if end == start {
		return 0, start
	}
	v, _ := strconv.ParseInt(s[start:end], base, 64)
	return v, end
}

func isDigit(c byte, base int) bool {
	switch base {
	case 8:
		return c >= '0' && c <= '7'
	case 16:
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	return c >= '0' && c <= '9'
}
