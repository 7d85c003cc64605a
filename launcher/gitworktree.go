package launcher

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// linkedWorktree is what a jail rooted in a linked git worktree (a
// `git worktree add`, as every `sandbox agents` agent runs in) needs of
// the repository it shares: the project's .git is then a file,
// "gitdir: COMMON/worktrees/X", and git writes its objects, refs and
// reflogs in COMMON and the worktree's HEAD, index and the like in
// COMMON/worktrees/X, all outside the project.
type linkedWorktree struct {
	gitfile string // ROOT/.git
	common  string // COMMON, the repository's own .git directory
	admin   string // COMMON/worktrees/X
}

// maxGitfile bounds the gitfiles read: git writes one line of a path.
const maxGitfile = 4096

// errNotLinked says the project is no linked worktree (its .git is a
// directory, or missing): nothing to log.
var errNotLinked = errors.New("not a linked worktree")

// findLinkedWorktree resolves root's .git gitfile with care, since what
// it names becomes writable: the gitfile a regular file (not a link) of
// one "gitdir: " line; the gitdir a directory COMMON/worktrees/X with no
// symbolic link on the way; its commondir leading back to COMMON, a
// directory named .git; its gitdir file naming root's .git again. Only a
// process that can write COMMON/worktrees can make all of that hold, and
// such a process can write COMMON's objects and refs already.
func findLinkedWorktree(root string) (linkedWorktree, error) {
	gitfile := filepath.Join(root, ".git")
	fi, err := os.Lstat(gitfile)
	if err != nil || fi.IsDir() {
		return linkedWorktree{}, errNotLinked
	}
	line, err := readSmall(gitfile)
	if err != nil {
		return linkedWorktree{}, err
	}
	target, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok || target == "" {
		return linkedWorktree{}, fmt.Errorf("%s: not a gitdir line", gitfile)
	}
	admin := relTo(root, target)
	if err := realDir(admin); err != nil {
		return linkedWorktree{}, err
	}
	common := filepath.Dir(filepath.Dir(admin))
	if filepath.Base(filepath.Dir(admin)) != "worktrees" || filepath.Base(common) != ".git" {
		return linkedWorktree{}, fmt.Errorf("gitdir %s is not .git/worktrees/NAME", admin)
	}
	if err := backRef(admin, "commondir", common); err != nil {
		return linkedWorktree{}, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return linkedWorktree{}, err
	}
	if err := backRef(admin, "gitdir", filepath.Join(realRoot, ".git")); err != nil {
		return linkedWorktree{}, err
	}
	return linkedWorktree{gitfile: gitfile, common: common, admin: admin}, nil
}

// backRef checks that the file name in admin names want (a relative
// path is taken from admin, as git does).
func backRef(admin, name, want string) error {
	line, err := readSmall(filepath.Join(admin, name))
	if err != nil {
		return err
	}
	if got := relTo(admin, line); got != want {
		return fmt.Errorf("%s/%s leads to %s, not %s", admin, name, got, want)
	}
	return nil
}

// readSmall reads a regular file (never through a link) of at most
// maxGitfile bytes, trailing white space cut.
func readSmall(p string) (string, error) {
	f, err := openNoFollow(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxGitfile {
		return "", fmt.Errorf("%s: not a small regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGitfile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxGitfile || bytes.ContainsAny(b, "\x00") {
		return "", fmt.Errorf("%s: not a small text file", p)
	}
	line := strings.TrimRight(string(b), " \t\r\n")
	if strings.ContainsAny(line, "\r\n") {
		return "", fmt.Errorf("%s: more than one line", p)
	}
	return line, nil
}

// relTo makes p absolute from dir and cleans it.
func relTo(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// realDir checks that p is a directory reached without a symbolic link.
func realDir(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	if real != p {
		return fmt.Errorf("%s goes through a symbolic link (to %s)", p, real)
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", p)
	}
	return nil
}

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

// addTo widens fs for the linked worktree: its COMMON trees and own dir
// writable, reached without a symbolic link (NoLinks), minus the
// protected names, and the gitfile pinned.
func (w linkedWorktree) addTo(fs *jailspec.FS) {
	var trees []string
	for _, name := range worktreeWritable {
		if realDir(filepath.Join(w.common, name)) == nil {
			trees = append(trees, filepath.Join(w.common, name))
		}
	}
	trees = append(trees, w.admin)
	fs.Writable = append(fs.Writable, trees...)
	fs.NoLinks = append(fs.NoLinks, trees...)
	// COMMON itself is no writable tree, so it pins nothing; it keeps a
	// repository under /tmp whole in the jail's private /tmp
	fs.ReadOnly = append(fs.ReadOnly, w.common, w.gitfile, filepath.Join(w.common, "objects/info/alternates"))
	fs.Placeholders[filepath.Join(w.common, "objects/info/alternates")] = ""
	for _, pr := range worktreeProtected {
		p := filepath.Join(w.admin, pr.name)
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
	}
}
