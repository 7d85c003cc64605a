package policy

import (
	"fmt"
	"unicode/utf8"
)

// errorf makes a pattern error that wraps ErrBadPattern.
func errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadPattern, fmt.Sprintf(format, args...))
}

// decodeRune decodes one rune; an invalid byte counts as one character.
func decodeRune(s string) (rune, int) {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return r, 1
	}
	return r, size
}
