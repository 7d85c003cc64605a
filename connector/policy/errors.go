package policy

import (
	"errors"
	"fmt"
)

// Sentinel errors. Test with errors.Is.
var (
	// ErrInvalidPolicy wraps every problem found in a policy file: a syntax
	// error, an unknown key, a bad value or an invalid pattern.
	ErrInvalidPolicy = errors.New("invalid policy")
	// ErrBadPattern is returned for a pattern that cannot be compiled.
	ErrBadPattern = errors.New("invalid pattern")
	// ErrNoRules is returned when a policy change cannot be written
	// because no rule qualifies or the file's layout cannot take it.
	ErrNoRules = errors.New("no rule to add")
)

// FileError is a problem at one line of a policy file. Its text is
// "file:line: message", the form editors and terminals link to.
type FileError struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap makes errors.Is(err, ErrInvalidPolicy) true.
func (e *FileError) Unwrap() error { return ErrInvalidPolicy }

// FileErrors is every problem found in one file, in line order.
type FileErrors []*FileError

func (es FileErrors) Error() string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}

// Unwrap exposes each problem to errors.Is and errors.As.
func (es FileErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

var errNoHost = errors.New("URL has no host")
