package agents

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// testIdent commits everything the land tests make.
const testIdent = "Lander <lander@example.com>"

// gitT runs git in dir for a test, with a fixed identity and no config
// but the repository's.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// landRepo is MAIN: a repository on main with a.txt and u.txt
// committed, and an agent's worktree on sandbox/NAME where MAIN puts it.
type landRepo struct {
	t        *testing.T
	root     string
	worktree string
	name     string
}

func newLandRepo(t *testing.T, name string) *landRepo {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitT(t, root, "init", "-q", "-b", "main")
	gitT(t, root, "config", "user.name", "Lander")
	gitT(t, root, "config", "user.email", "lander@example.com")
	write(t, root, "a.txt", "one\ntwo\nthree\n")
	write(t, root, "u.txt", "user\n")
	write(t, root, ".gitignore", ".sandbox/\n")
	gitT(t, root, "add", ".")
	gitT(t, root, "commit", "-q", "-m", "base")
	wt := filepath.Join(root, ".sandbox", "worktrees", name)
	gitT(t, root, "worktree", "add", "-q", "-b", "sandbox/"+name, wt)
	return &landRepo{t: t, root: root, worktree: wt, name: name}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// agentCommit commits files (name, content pairs) in the agent's
// worktree and returns the commit.
func (r *landRepo) agentCommit(msg string, files ...string) string {
	return commitIn(r.t, r.worktree, msg, files...)
}

// mainCommit commits files on MAIN's checked-out branch.
func (r *landRepo) mainCommit(msg string, files ...string) string {
	return commitIn(r.t, r.root, msg, files...)
}

func commitIn(t *testing.T, dir, msg string, files ...string) string {
	t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		write(t, dir, files[i], files[i+1])
		gitT(t, dir, "add", "--", files[i])
	}
	gitT(t, dir, "commit", "-q", "-m", msg)
	return gitT(t, dir, "rev-parse", "HEAD")
}

func (r *landRepo) rev(rev string) string { return gitT(r.t, r.root, "rev-parse", rev) }

// landing is a land of the agent's branch as it is now into main.
func (r *landRepo) landing(mode Mode) Landing {
	return Landing{Name: r.name, Mode: mode, Head: r.rev("refs/heads/sandbox/" + r.name),
		Into: "main", Target: r.rev("refs/heads/main"), Ident: testIdent}
}

func (r *landRepo) apply(l Landing) (Applied, error) {
	r.t.Helper()
	return Apply(context.Background(), r.root, l)
}

// snapshot is everything a land that changes nothing must leave as it
// was: every ref and HEAD, the index's entries, the state files of a
// merge in progress, and every file of MAIN's working tree (bar .git
// and the agents' worktrees).
func (r *landRepo) snapshot() string {
	r.t.Helper()
	var b strings.Builder
	b.WriteString(gitT(r.t, r.root, "for-each-ref", "--format=%(refname) %(objectname)"))
	b.WriteString("\nHEAD " + gitT(r.t, r.root, "symbolic-ref", "HEAD") + "\n")
	b.WriteString(gitT(r.t, r.root, "ls-files", "--stage") + "\n")
	for _, f := range []string{"MERGE_HEAD", "MERGE_MSG", "CHERRY_PICK_HEAD", "REBASE_HEAD", "AUTO_MERGE", "ORIG_HEAD"} {
		if _, err := os.Lstat(filepath.Join(r.root, ".git", f)); err == nil {
			b.WriteString(".git/" + f + " exists\n")
		}
	}
	var files []string
	filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(r.root, p)
		if rel == ".git" || rel == ".sandbox" {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() {
			files = append(files, rel+"="+read(r.t, r.root, rel))
		}
		return nil
	})
	sort.Strings(files)
	b.WriteString(strings.Join(files, "\n"))
	return b.String()
}
