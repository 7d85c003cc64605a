package agents

import (
	"fmt"
	"strings"
)

// ConflictError is a land whose merge (or one replayed commit) conflicts:
// the files, and git's messages; nothing changed.
type ConflictError struct {
	Commit   string   // the replayed commit that conflicts (rebase), or ""
	Files    []string // the conflicting paths
	Messages string   // git's CONFLICT lines
}

func (e *ConflictError) Error() string {
	what := "the merge conflicts"
	if e.Commit != "" {
		what = "replaying " + abbrev(e.Commit) + " conflicts"
	}
	return fmt.Sprintf("%s in %d file(s): %s; nothing changed", what, len(e.Files), strings.Join(e.Files, ", "))
}

// short is the first 12 characters of a commit id.
func abbrev(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
