package broker

import (
	"fmt"
	"strings"
)

// Edit is one exact-string replacement with Claude Code's semantics: Old
// must occur exactly once in the file unless ReplaceAll, and must differ
// from New.
type Edit struct {
	Old, New   string
	ReplaceAll bool
}

// checkEdits rejects edits that could never apply, before any file is read.
func checkEdits(edits []Edit) error {
	if len(edits) == 0 {
		return ErrNoEdits
	}
	for i, e := range edits {
		switch {
		case e.Old == "":
			return fmt.Errorf("edit %d of %d: %w", i+1, len(edits), ErrEmptyOld)
		case e.Old == e.New:
			return fmt.Errorf("edit %d of %d: %w", i+1, len(edits), ErrNoChange)
		}
	}
	return nil
}

// applyEdits applies every edit in order, each to the result of the
// previous one (MultiEdit). Any failing edit fails them all.
func applyEdits(content string, edits []Edit) (string, error) {
	if err := checkEdits(edits); err != nil {
		return "", err
	}
	for i, e := range edits {
		n := strings.Count(content, e.Old)
		switch {
		case n == 0:
			return "", fmt.Errorf("edit %d of %d: %w", i+1, len(edits), ErrOldNotFound)
		case n > 1 && !e.ReplaceAll:
			return "", fmt.Errorf("edit %d of %d: %w (%d matches)", i+1, len(edits), ErrAmbiguous, n)
		case e.ReplaceAll:
			content = strings.ReplaceAll(content, e.Old, e.New)
		default:
			content = strings.Replace(content, e.Old, e.New, 1)
		}
	}
	return content, nil
}
