package launcher

import (
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/gitworktree"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// worktreeWritable are the trees of COMMON a linked worktree's git
// writes: objects (but objects/info/alternates), refs and reflogs. COMMON
// itself stays read-only (its config, hooks, info/, remotes/, branches/,
// packed-refs and every lock file at its top), and so do the other
// worktrees' dirs.
var worktreeWritable = []string{"objects", "refs", "logs"}

// worktreeProtected are names of the worktree's own dir COMMON/worktrees/X
// that stay read-only, with the content of a placeholder that stands in
// for a missing one during a run: where it finds COMMON (commondir), what
// `git worktree prune` takes for the worktree (gitdir), config it reads
// when extensions.worktreeConfig is on (config.worktree), and the lock
// that keeps prune and remove away (locked: a placeholder, whose content
// is the reason `git worktree list` shows, locks the worktree while a
// jail runs in it).
var worktreeProtected = []struct{ name, content string }{
	{"commondir", ""}, {"gitdir", ""}, {"config.worktree", ""},
	{"locked", "a sandbox jail runs in this worktree\n"},
}

// addWorktree widens fs for the linked worktree w: its COMMON trees and own dir
// writable, reached without a symbolic link (NoLinks), minus the
// protected names, and the gitfile pinned.
func addWorktree(fs *jailspec.FS, w gitworktree.Linked) {
	var trees []string
	for _, name := range worktreeWritable {
		if gitworktree.RealDir(filepath.Join(w.Common, name)) == nil {
			trees = append(trees, filepath.Join(w.Common, name))
		}
	}
	trees = append(trees, w.Admin)
	fs.Writable = append(fs.Writable, trees...)
	fs.NoLinks = append(fs.NoLinks, trees...)
	// COMMON itself is no writable tree, so it pins nothing; it keeps a
	// repository under /tmp whole in the jail's private /tmp
	// refs/replace stays as it is: a replace ref makes git read one
	// object's content for another's, in MAIN too (made here when
	// missing, so that it is pinned as a real directory)
	_ = os.Mkdir(filepath.Join(w.Common, "refs", "replace"), 0o755)
	fs.ReadOnly = append(fs.ReadOnly, w.Common, w.Gitfile, filepath.Join(w.Common, "objects/info/alternates"),
		filepath.Join(w.Common, "refs", "replace"))
	fs.Placeholders[filepath.Join(w.Common, "objects/info/alternates")] = ""
	for _, pr := range worktreeProtected {
		p := filepath.Join(w.Admin, pr.name)
		fs.ReadOnly = append(fs.ReadOnly, p)
		fs.Placeholders[p] = pr.content
	}
}

// seedWorktreesDir makes the repository's .git/worktrees when .git is a
// directory without one, so that pinning it (ProtectedPaths) binds a real
// directory rather than a placeholder for the run: a placeholder (mode
// 0555) would make the user's own `git worktree add`, and so `sandbox
// agents spawn`, fail while a jail runs in the main worktree. git reads
// an empty one as no linked worktrees.
func seedWorktreesDir(root string) {
	if fi, err := os.Lstat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
		_ = os.Mkdir(filepath.Join(root, ".git", "worktrees"), 0o755)
		_ = os.Mkdir(filepath.Join(root, ".git", "refs", "replace"), 0o755) // the same, for git replace
	}
}
