package inbox

import (
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// BatchKey identifies requests that ask the same thing in different
// agents' folders: the content hash (queue.Request.ComputeHash) of req
// with its working directory taken relative to root, the folder it
// arrived in. The same `npm ci` in two worktrees has two content hashes
// (each names its own cwd) and one batch key. A cwd outside root stays
// absolute. Each request of a batch is still approved with its own
// content hash and runs in its own folder.
func BatchKey(root string, req *queue.Request) string {
	c := *req
	if rel, err := filepath.Rel(root, req.Cwd); err == nil && filepath.IsAbs(req.Cwd) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		c.Cwd = "./" + filepath.ToSlash(rel)
	}
	return c.ComputeHash()
}
