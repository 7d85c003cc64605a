package jsonedit

import "errors"

// Sentinel errors. Test with errors.Is.
var (
	// ErrMalformed is a file that is not valid JSON of the expected
	// shape; nothing is changed.
	ErrMalformed = errors.New("malformed JSON configuration")
	// ErrConflict is a file that already holds, under sandbox's name,
	// something sandbox did not put there; nothing is changed.
	ErrConflict = errors.New("conflicting entry")
)
