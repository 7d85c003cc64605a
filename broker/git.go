package broker

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/gitworktree"
)

// ErrGitRefused: an approved command that runs git would use a repository
// set-up the agent could have planted; nothing ran.
var ErrGitRefused = errors.New("broker: git refused")

// GitUse says how an approved command runs git (Grant.Git).
type GitUse int

const (
	GitNone GitUse = iota
	// GitRepo: git acts on the project's repository, pinned by GIT_DIR
	// and GIT_WORK_TREE.
	GitRepo
	// GitNew: git makes a repository (clone, init): no pin of the
	// directories, the configuration pins still apply.
	GitNew
)

// gitPinned are the configuration keys whose values in an agent-writable
// config (the repository's .git/config, a planted commondir's) would run
// programs: they are set on git's command-line scope, which beats every
// file. The user's global value is kept where there is one.
var gitPinned = []struct{ key, fallback string }{
	{"core.hooksPath", "/dev/null"},
	{"core.fsmonitor", "false"},
	{"core.sshCommand", "ssh"},
	{"core.pager", "cat"},
	{"core.editor", "true"},
	{"core.askPass", ""},
	{"protocol.ext.allow", "never"},
}

// gitEnv checks the repository an approved git command will use and
// returns the variables that pin it: git's hooks off, fsmonitor off, the
// programs git runs taken from the user's global config (trusted) or
// fixed, never from the repository's (agent-writable in connector mode),
// and GIT_DIR/GIT_WORK_TREE on the project's own repository. It refuses a
// .git that is a file (a gitdir pointer) unless it is a linked worktree's
// that checks out (gitworktree.Find), a nested repository between
// the working directory and the project root, and a repository with
// commondir or objects/info/alternates, all of which let a planted file
// decide what git reads.
func gitEnv(root, dir string, use GitUse, env []string) ([]string, error) {
	rootReal, err := realRoot(root)
	if err != nil {
		return nil, err
	}
	wd, err := realWorkDir(root, dir)
	if err != nil {
		return nil, err
	}
	repo, common, err := findRepo(rootReal, wd)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGitRefused, err)
	}
	out := gitConfigEnv(env)
	if use == GitRepo && repo != "" {
		out = append(out, "GIT_DIR="+repo, "GIT_WORK_TREE="+rootReal)
		if common != "" {
			out = append(out, "GIT_COMMON_DIR="+common)
		}
	}
	return out, nil
}

// findRepo walks from wd up to root and returns root/.git when that is
// the repository wd belongs to ("" when there is none). When the project
// is a linked worktree (an agent of `sandbox agents`: root/.git is a file
// "gitdir: COMMON/worktrees/X"), it returns the worktree's own dir and
// COMMON, once gitworktree.Find has checked that the gitfile and what it
// names are what `git worktree add` made and lead back to each other.
func findRepo(root, wd string) (repo, common string, err error) {
	for d := wd; folder.Within(root, d); d = filepath.Dir(d) {
		g := filepath.Join(d, ".git")
		fi, err := os.Lstat(g)
		if errors.Is(err, os.ErrNotExist) {
			if d == root {
				return "", "", nil
			}
			continue
		}
		switch {
		case err != nil:
			return "", "", err
		case d != root:
			return "", "", fmt.Errorf("nested repository %s: its configuration is not the project's (run the command from the project's own repository)", g)
		case !fi.IsDir():
			wt, err := gitworktree.Find(root)
			if err != nil {
				return "", "", fmt.Errorf("%s is not a directory (a .git file points git at another directory) and is no linked worktree of a repository: %w", g, err)
			}
			if err := unplanted(wt.Common); err != nil {
				return "", "", err
			}
			return wt.Admin, wt.Common, nil
		}
		if err := unplanted(g); err != nil {
			return "", "", err
		}
		return g, "", nil
	}
	return "", "", nil
}

// unplanted refuses a repository dir whose commondir or alternates point
// git at files outside it.
func unplanted(g string) error {
	for planted, harmless := range map[string]string{"commondir": ".", "objects/info/alternates": ""} {
		if p := filepath.Join(g, planted); !holds(p, harmless) {
			return fmt.Errorf("%s exists: it points git at files outside the repository", p)
		}
	}
	return nil
}

// holds reports whether p is absent, or a small regular file holding only
// want (and white space): what a jail's placeholder for a protected name
// holds (a commondir of "." is the repository itself, an empty alternates
// file adds nothing).
func holds(p, want string) bool {
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 64 {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && strings.TrimSpace(string(b)) == want
}

// gitConfigEnv sets the pinned keys on git's command-line scope
// (GIT_CONFIG_COUNT), credential.helper reset and refilled from the
// user's global config.
func gitConfigEnv(env []string) []string {
	var kv [][2]string
	for _, p := range gitPinned {
		v := p.fallback
		if g := globalGit(env, "--get", p.key); len(g) > 0 && p.key != "core.hooksPath" && p.key != "core.fsmonitor" {
			v = g[len(g)-1]
		}
		kv = append(kv, [2]string{p.key, v})
	}
	kv = append(kv, [2]string{"credential.helper", ""}) // empty resets the list the repository's config built
	for _, h := range globalGit(env, "--get-all", "credential.helper") {
		kv = append(kv, [2]string{"credential.helper", h})
	}
	out := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(kv))}
	for i, p := range kv {
		n := strconv.Itoa(i)
		out = append(out, "GIT_CONFIG_KEY_"+n+"="+p[0], "GIT_CONFIG_VALUE_"+n+"="+p[1])
	}
	return out
}

// repoConfig reads key from the project repository's own config file.
func repoConfig(root string, env []string, key string) string {
	git, err := findGit(env)
	if err != nil {
		return ""
	}
	cmd := exec.Command(git, "config", "--file", filepath.Join(root, ".git", "config"), "--get", key)
	cmd.Dir = "/"
	cmd.Env = []string{"HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + getenv(env, "PATH")}
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// globalGit reads the user's global git config (no repository, no
// system file), which the agent cannot write.
func globalGit(env []string, args ...string) []string {
	git, err := findGit(env)
	if err != nil {
		return nil
	}
	cmd := exec.Command(git, append([]string{"config", "--global"}, args...)...)
	cmd.Dir = "/"
	cmd.Env = []string{"HOME=" + getenv(env, "HOME"), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + getenv(env, "PATH")}
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}
