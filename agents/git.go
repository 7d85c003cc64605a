package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sandbox-dev/sandbox/connector/gitworktree"
)

// gitSafe are the options every git command of ours runs with: no hook
// and no fsmonitor of the repository runs as the human (an agent's branch
// or worktree could have planted one).
var gitSafe = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}

// gitEnv is this process's environment without the variables that would
// point git at another repository, work tree, index or object store.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
			"GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SSH_COMMAND", "GIT_CONFIG_PARAMETERS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
}

// git runs git in dir and returns its standard output; a failure carries
// git's own message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitStdin(ctx, dir, "", 0, args...)
}

// gitStdin is git with stdin as its standard input, and an exit code up
// to okExit (check-ignore's 1: nothing matched) taken as success.
func gitStdin(ctx context.Context, dir, stdin string, okExit int, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append(append(append([]string{}, gitSafe...), "-C", dir), args...)...)
	cmd.Env = gitEnv()
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() <= okExit {
			return out.String(), nil
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.String(), nil
}

// resolveBase checks that main is the top of its git work tree (the
// worktree is of the whole repository) and turns what the user named
// into a commit id, in one git call (each costs about 10 ms, 100 ms on a
// loaded machine, before the agent can start).
func resolveBase(ctx context.Context, main, ref string) (string, error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("base %q: %w", ref, ErrNoBase)
	}
	out, err := git(ctx, main, "rev-parse", "--show-toplevel", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if top, terr := filepath.EvalSymlinks(lines[0]); lines[0] == "" || terr != nil || top != main {
		return "", fmt.Errorf("%s: %w (it must be the top of its git work tree)", main, ErrNotRepo)
	}
	if err != nil || len(lines) != 2 {
		return "", fmt.Errorf("base %q: %w", ref, ErrNoBase)
	}
	return lines[1], nil
}

// checkBase refuses, before any git work, a base no git would take for
// one and a MAIN that is not the top of a repository of its own (no .git
// directory there; resolveBase checks the rest beside the checkout).
func checkBase(main, ref string) error {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return fmt.Errorf("base %q: %w", ref, ErrNoBase)
	}
	if fi, err := os.Lstat(filepath.Join(main, ".git")); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: %w (it must be the top of its git work tree)", main, ErrNotRepo)
	}
	return nil
}

// checkedOut returns the commit worktree's branch holds: the base
// resolveBase found, unless MAIN's ref moved in between. It
// reads the branch's loose ref (git writes a new branch as one) through
// the worktree's .git file and its commondir, and asks git otherwise.
func checkedOut(ctx context.Context, worktree, branch string) (string, error) {
	if tip, ok := looseRef(worktree, "refs/heads/"+branch); ok {
		return tip, nil
	}
	out, err := git(ctx, worktree, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// looseRef reads ref from the common git dir of worktree, a linked
// worktree (gitworktree.Find, which checks its gitfile and commondir); ok
// only for a well-formed object id.
func looseRef(worktree, ref string) (string, bool) {
	w, err := gitworktree.Find(worktree)
	if err != nil {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(w.Common, filepath.FromSlash(ref)))
	if err != nil {
		return "", false
	}
	id := strings.TrimSpace(string(b))
	return id, validID(id)
}

// dirty reports whether MAIN's working tree has changes a worktree from a
// commit will not see (tracked changes or untracked files).
func dirty(ctx context.Context, main string) (bool, error) {
	// .sandbox/ is left out: the worktree gets a bus of its own.
	out, err := git(ctx, main, "status", "--porcelain", "-z", "--", ".", ":(exclude).sandbox")
	return out != "", err
}

// branchExists reports whether refs/heads/branch exists in MAIN.
func branchExists(ctx context.Context, main, branch string) bool {
	_, err := git(ctx, main, "show-ref", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// branchFree reports whether MAIN (a repository whose .git is a
// directory) has no branch of that name, from the loose ref and
// packed-refs as git keeps them as files (no git process on spawn's
// path). known is false when it cannot tell: the refs are kept another
// way (reftable), or a file could not be read.
func branchFree(main, branch string) (free, known bool) {
	gitDir := filepath.Join(main, ".git")
	if !refsAreFiles(gitDir) {
		return false, false
	}
	ref := "refs/heads/" + branch
	switch _, err := os.Lstat(filepath.Join(gitDir, filepath.FromSlash(ref))); {
	case err == nil:
		return false, true
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return false, false
	}
	_, found, ok := packedRef(gitDir, func(name string) bool { return name == ref })
	return ok && !found, ok
}

// refsAreFiles reports whether the repository at gitDir keeps its refs
// as loose files and packed-refs, as this package reads them (not in a
// reftable).
func refsAreFiles(gitDir string) bool {
	_, err := os.Lstat(filepath.Join(gitDir, "reftable"))
	return errors.Is(err, fs.ErrNotExist)
}

// packedRef returns the object id of the first ref in gitDir's
// packed-refs whose name match accepts: found is false when none does
// (a missing file packs none), ok false when the file cannot be read.
func packedRef(gitDir string, match func(name string) bool) (id string, found, ok bool) {
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, true
	}
	if err != nil {
		return "", false, false
	}
	for line := range strings.Lines(string(packed)) {
		if id, name, cut := strings.Cut(strings.TrimRight(line, "\r\n"), " "); cut && match(name) {
			return id, true, true
		}
	}
	return "", false, true
}
