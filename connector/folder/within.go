package folder

import (
	"path/filepath"
	"strings"
)

// Within reports whether p is root or a path below it. Both must be clean,
// absolute and already resolved (symbolic links); the test is on whole
// names through filepath.Rel (either separator and no case on Windows),
// never a string prefix, so /proj-evil is not within /proj.
func Within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
