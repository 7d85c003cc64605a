package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// repo is MAIN's repository as land reads and writes it. The agent shares
// MAIN's object store and refs (its worktree is a `git worktree` of MAIN)
// and can write its own worktree's files, including the `.git` file that
// says where its repository is; so land never lets git discover anything:
// GIT_DIR and GIT_WORK_TREE name MAIN's own .git and working tree, hooks
// and fsmonitor are off on the command line (which beats every config
// file), the system config is not read, replace refs (refs/replace/, which
// the agent can write, would make one commit id show another's content)
// are ignored, and every other GIT_* variable of the caller is dropped.
type repo struct {
	root   string // MAIN's working tree, links resolved
	gitDir string // root/.git, a directory
	git    string // the git program
	env    []string
}

// safeGitArgs come first on every git command line of land.
var safeGitArgs = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.untrackedCache=false",
	"-c", "core.pager=cat",
	"-c", "core.editor=true",
	"-c", "diff.external=",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "commit.gpgSign=false",
}

// openRepo opens the repository whose working tree is root. Its .git must
// be a directory: a .git file (a worktree's pointer) would let whoever
// wrote it decide which repository, config and hooks git uses.
func openRepo(root string) (*repo, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotRepo, err)
	}
	gitDir := filepath.Join(real, ".git")
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotRepo, real, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrNotRepo, gitDir)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoGit, err)
	}
	return &repo{root: real, gitDir: gitDir, git: git, env: gitEnviron(os.Environ(), gitDir, real)}, nil
}

// gitEnviron is env without git's variables (bar the commit identity),
// plus the pins of repo.
func gitEnviron(env []string, gitDir, root string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") && !identityVar(name) || name == "LANG" || strings.HasPrefix(name, "LC_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"GIT_DIR="+gitDir, "GIT_WORK_TREE="+root,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_NO_LAZY_FETCH=1", "LC_ALL=C")
}

func identityVar(name string) bool {
	switch name {
	case "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE":
		return true
	}
	return false
}

// gitError is a git command that failed: its arguments, exit code and
// standard error.
type gitError struct {
	args   []string
	code   int
	stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

// run runs git with args in MAIN's working tree and returns its standard
// output; a non-zero exit is a *gitError.
func (r *repo) run(ctx context.Context, args ...string) (string, error) {
	return r.runEnv(ctx, nil, args...)
}

// runEnv is run with extra variables (a commit's identity).
func (r *repo) runEnv(ctx context.Context, extra []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, r.git, append(append([]string{}, safeGitArgs...), args...)...)
	cmd.Dir = r.root
	cmd.Env = append(append([]string{}, r.env...), extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), &gitError{args: args, code: ee.ExitCode(), stderr: errb.String()}
	}
	if err != nil {
		return out.String(), fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), nil
}

// line is run's output, trimmed.
func (r *repo) line(ctx context.Context, args ...string) (string, error) {
	out, err := r.run(ctx, args...)
	return strings.TrimSpace(out), err
}

// commit resolves rev to a full commit id; "" with a nil error when it
// does not exist.
func (r *repo) commit(ctx context.Context, rev string) (string, error) {
	out, err := r.line(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	var ge *gitError
	if errors.As(err, &ge) && ge.code == 1 {
		return "", nil
	}
	return out, err
}

// isAncestor reports whether a is an ancestor of (or equal to) b.
func (r *repo) isAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.run(ctx, "merge-base", "--is-ancestor", a, b)
	var ge *gitError
	if errors.As(err, &ge) && ge.code == 1 {
		return false, nil
	}
	return err == nil, err
}

// checkedOut is the branch (short name) MAIN's working tree has checked
// out, "" when HEAD is detached.
func (r *repo) checkedOut(ctx context.Context) (string, error) {
	out, err := r.line(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	var ge *gitError
	if errors.As(err, &ge) && ge.code == 1 {
		return "", nil
	}
	return out, err
}

// elsewhere is the path of another worktree (not MAIN's) that has branch
// checked out, or "".
func (r *repo) elsewhere(ctx context.Context, branch string) (string, error) {
	out, err := r.run(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return "", err
	}
	path := ""
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "worktree "):
			path = strings.TrimPrefix(l, "worktree ")
		case l == "branch refs/heads/"+branch && path != r.root:
			return path, nil
		}
	}
	return "", nil
}
