package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// A spawn's worktree is what `git worktree add -b BRANCH WT BASE` makes,
// but git worktree add starts three more gits to make it (`branch`,
// `symbolic-ref`, then `reset --hard` for the checkout), and on a shared
// machine those starts were a sixth of the worktree's time, more when
// the supervisor's start ran beside them. addWorktree writes the few
// files git would (the branch's loose ref, by git's lock-file protocol;
// the worktree's administrative directory; its .git file) and starts one
// git, the same `reset --hard`. It speaks only for a repository whose
// refs are files and whose config asks nothing more of a new worktree
// (plainRepo); anything else is git worktree add's.
//
// What differs from git's own: the branch has no reflog entry for its
// creation (git writes its reflog from the agent's first commit on; the
// worktree's HEAD reflog starts with the checkout).

// errNotPlain: the repository is not one addWorktree writes for.
var errNotPlain = errors.New("not a repository whose worktree spawn writes itself")

// addWorktree makes wt (absolute, not there) a linked worktree of the
// repository at main on the new branch refs/heads/branch at commit base,
// checked out. beside (when not nil) runs while git checks the files
// out, once wt is there; what it makes there must survive a checkout
// (git replaces what is in a tracked file's way). Nothing is left of a
// try that failed; errNotPlain (nothing written) leaves it to git
// worktree add, errBranchThere says the branch exists.
func addWorktree(ctx context.Context, main, wt, branch, base string, beside func()) (err error) {
	gitDir := filepath.Join(main, ".git")
	if runtime.GOOS == "windows" || !plainRepo(gitDir) || !validID(base) {
		return errNotPlain // git's files name Windows paths in its own way
	}
	ref := "refs/heads/" + branch
	if err := createRef(main, gitDir, branch, base); err != nil {
		return err
	}
	var admin string
	defer func() {
		if err != nil {
			if admin != "" {
				os.RemoveAll(admin)
			}
			os.RemoveAll(wt)
			deleteRef(gitDir, ref, base)
		}
	}()
	if admin, err = adminDir(gitDir, filepath.Base(wt)); err != nil {
		return err
	}
	// "locked" keeps a `git worktree prune` from taking the entry before
	// the worktree's .git file is there, as git's own add does
	for _, f := range []struct{ name, text string }{
		{"locked", "initializing"},
		{"commondir", "../.."},
		{"gitdir", filepath.Join(wt, ".git")},
		{"HEAD", "ref: " + ref},
	} {
		if err = os.WriteFile(filepath.Join(admin, f.name), []byte(f.text+"\n"), 0o644); err != nil {
			return err
		}
	}
	if err = os.Mkdir(wt, 0o755); err != nil {
		return err
	}
	if err = os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if beside != nil {
			beside()
		}
	}()
	_, err = git(ctx, wt, "reset", "--hard", "--quiet", "--no-recurse-submodules")
	<-done
	if err != nil {
		return err
	}
	return os.Remove(filepath.Join(admin, "locked"))
}

// plainRepo reports whether the repository at gitDir keeps its refs as
// files and has no config that a new worktree would have to follow: a
// work tree set elsewhere, per-worktree config, sparse checkout, another
// ref storage, or an included file that could say any of these. It errs
// towards git worktree add.
func plainRepo(gitDir string) bool {
	if !refsAreFiles(gitDir) {
		return false
	}
	if fi, err := os.Lstat(filepath.Join(gitDir, "refs", "heads")); err != nil || !fi.IsDir() {
		return false
	}
	cfg, err := readSmall(filepath.Join(gitDir, "config"), 1<<20)
	if err != nil {
		return false
	}
	flat := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, strings.ToLower(cfg))
	for _, s := range []string{"worktree", "sparse", "refstorage", "[include"} {
		if strings.Contains(flat, s) {
			return false
		}
	}
	for line := range strings.Lines(flat) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "bare="); ok && !slices.Contains([]string{"false", "no", "off", "0"}, v) {
			return false
		}
	}
	return true
}

// createRef creates the branch at id by git's protocol for a loose ref:
// an exclusive lock file beside it, the check that no branch of the name
// is there (loose or packed) made under the lock, then a rename.
func createRef(main, gitDir, branch, id string) error {
	path := filepath.Join(gitDir, "refs", "heads", filepath.FromSlash(branch))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("branch %s: %w", branch, err)
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return errBranchThere // another writer is making it
	}
	if err != nil {
		return fmt.Errorf("branch %s: %w", branch, err)
	}
	defer os.Remove(lock) // gone already once renamed
	free, known := branchFree(main, branch)
	if known && free {
		free, known = noPackedPrefix(gitDir, "refs/heads/"+branch)
	}
	if !known {
		f.Close()
		return errNotPlain
	}
	if !free {
		f.Close()
		return errBranchThere
	}
	_, err = f.WriteString(id + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock, path)
	}
	if err != nil {
		return fmt.Errorf("branch %s: %w", branch, err)
	}
	return nil
}

// noPackedPrefix reports whether packed-refs holds no ref that is a
// directory of ref or has ref as its directory (refs/heads/sandbox
// packed forbids refs/heads/sandbox/x, as a file of the name does);
// known is false when it cannot be read.
func noPackedPrefix(gitDir, ref string) (free, known bool) {
	_, found, ok := packedRef(gitDir, func(name string) bool {
		return strings.HasPrefix(ref, name+"/") || strings.HasPrefix(name, ref+"/")
	})
	return ok && !found, ok
}

// deleteRef removes the loose ref this spawn created, while it still
// holds id.
func deleteRef(gitDir, ref, id string) {
	path := filepath.Join(gitDir, filepath.FromSlash(ref))
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == id {
		os.Remove(path)
	}
}

// adminDir creates the worktree's directory under gitDir/worktrees, named
// as git names it: the worktree's base name, a number added while the
// name is taken.
func adminDir(gitDir, name string) (string, error) {
	dir := filepath.Join(gitDir, "worktrees")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := 0; i < 100; i++ {
		p := filepath.Join(dir, name)
		if i > 0 {
			p += strconv.Itoa(i)
		}
		err := os.Mkdir(p, 0o755)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: every name for %s is taken (`git worktree prune`)", dir, name)
}

// headCommit is the commit MAIN's HEAD names, read from the files git
// keeps (HEAD, the loose ref or packed-refs); ok is false when it cannot
// tell, and git is asked.
func headCommit(gitDir string) (string, bool) {
	head, err := readSmall(filepath.Join(gitDir, "HEAD"), 4096)
	if err != nil {
		return "", false
	}
	head = strings.TrimSpace(head)
	name, symbolic := strings.CutPrefix(head, "ref: ")
	if !symbolic {
		return head, validID(head)
	}
	if !strings.HasPrefix(name, "refs/heads/") || strings.Contains(name, "..") {
		return "", false
	}
	if b, err := readSmall(filepath.Join(gitDir, filepath.FromSlash(name)), 4096); err == nil {
		id := strings.TrimSpace(b)
		return id, validID(id)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	id, found, ok := packedRef(gitDir, func(n string) bool { return n == name })
	return id, ok && found && validID(id)
}

// validID: a full object id, SHA-1 or SHA-256, in lower case.
func validID(id string) bool {
	return (len(id) == 40 || len(id) == 64) && strings.Trim(id, "0123456789abcdef") == ""
}

// readSmall reads a file of at most limit bytes.
func readSmall(path string, limit int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return "", err
	}
	if int64(b.Len()) > limit {
		return "", fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b.String(), nil
}

// baseOf is the commit ref names in MAIN: HEAD read from git's files
// when MAIN is a plain repository, anything else (or a HEAD it cannot
// read) by resolveBase's git, which also checks that MAIN is the top of
// its work tree (plainRepo's config check says so for the first).
func baseOf(ctx context.Context, main, ref string) (string, error) {
	if gitDir := filepath.Join(main, ".git"); ref == "HEAD" && plainRepo(gitDir) {
		if id, ok := headCommit(gitDir); ok {
			return id, nil
		}
	}
	return resolveBase(ctx, main, ref)
}
