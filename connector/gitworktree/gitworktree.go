// Package gitworktree reads a linked git worktree (`git worktree add`, as
// every `sandbox agents` agent runs in) with the care its files need: the
// worktree's .git is a file that says where its repository is, and an
// agent can write it. The jail (launcher) widens what it may write by what
// Find returns, and the broker pins an approved git command to it.
package gitworktree

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Linked is a linked worktree's place in the repository it shares: its
// .git is a file, "gitdir: COMMON/worktrees/X", and git writes its
// objects, refs and reflogs in COMMON and the worktree's HEAD, index and
// the like in COMMON/worktrees/X, all outside the worktree.
type Linked struct {
	Gitfile string // ROOT/.git
	Common  string // COMMON, the repository's own .git directory
	Admin   string // COMMON/worktrees/X
}

// maxGitfile bounds the gitfiles read: git writes one line of a path.
const maxGitfile = 4096

// ErrNotLinked says the project is no linked worktree (its .git is a
// directory, or missing): nothing to log.
var ErrNotLinked = errors.New("not a linked worktree")

// Find resolves root's .git gitfile with care, since what it names
// becomes writable in a jail and is where the broker's git goes: the gitfile a regular file (not a link) of
// one "gitdir: " line; the gitdir a directory COMMON/worktrees/X with no
// symbolic link on the way; its commondir leading back to COMMON, a
// directory named .git; its gitdir file naming root's .git again. Only a
// process that can write COMMON/worktrees can make all of that hold, and
// such a process can write COMMON's objects and refs already.
func Find(root string) (Linked, error) {
	gitfile := filepath.Join(root, ".git")
	fi, err := os.Lstat(gitfile)
	if err != nil || fi.IsDir() {
		return Linked{}, ErrNotLinked
	}
	line, err := readSmall(gitfile)
	if err != nil {
		return Linked{}, err
	}
	target, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok || target == "" {
		return Linked{}, fmt.Errorf("%s: not a gitdir line", gitfile)
	}
	admin := relTo(root, target)
	if err := RealDir(admin); err != nil {
		return Linked{}, err
	}
	common := filepath.Dir(filepath.Dir(admin))
	if filepath.Base(filepath.Dir(admin)) != "worktrees" || filepath.Base(common) != ".git" {
		return Linked{}, fmt.Errorf("gitdir %s is not .git/worktrees/NAME", admin)
	}
	if err := backRef(admin, "commondir", common); err != nil {
		return Linked{}, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Linked{}, err
	}
	if err := backRef(admin, "gitdir", filepath.Join(realRoot, ".git")); err != nil {
		return Linked{}, err
	}
	return Linked{Gitfile: gitfile, Common: common, Admin: admin}, nil
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

// RealDir checks that p is a directory reached without a symbolic link.
func RealDir(p string) error {
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
