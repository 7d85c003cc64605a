package originals

import "errors"

// Sentinel errors. Test with errors.Is.
var (
	// ErrTooLarge is a file larger than MaxSize.
	ErrTooLarge = errors.New("file too large to keep its original")
	// ErrNotRegular is a path that is not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrCorrupt is an object whose content no longer matches its hash.
	ErrCorrupt = errors.New("original is corrupt")
	// ErrMoved is a path whose parent directory now resolves elsewhere
	// (a link was planted): it is not restored through it.
	ErrMoved = errors.New("parent directory changed since the original was kept")
)
