package agents

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	_ "github.com/sandbox-dev/sandbox/connector/claude"
	_ "github.com/sandbox-dev/sandbox/connector/codex"
	"github.com/sandbox-dev/sandbox/connector/folder"
	_ "github.com/sandbox-dev/sandbox/connector/gemini"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_COMMITTER_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func putFile(t *testing.T, path, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// .worktreeinclude copies what it matches and git ignores: not a file
// that is not ignored, not a link, not .sandbox/, and a file the
// checkout has is kept.
func TestCopyIncluded(t *testing.T) {
	t.Parallel()
	testenv.RequireCommand(t, "git")
	main, wt := t.TempDir(), t.TempDir()
	gitIn(t, main, "init", "-q")
	putFile(t, filepath.Join(main, ".gitignore"), ".env\n*.local\nsecrets/\n.sandbox/\nlink.env\n")
	putFile(t, filepath.Join(main, IncludeFile), ".env\n*.local\nsecrets/\nnotignored.txt\nlink.env\n.sandbox/\n")
	putFile(t, filepath.Join(main, ".env"), "A=1")
	putFile(t, filepath.Join(main, "sub", "x.local"), "x")
	putFile(t, filepath.Join(main, "secrets", "k"), "k")
	putFile(t, filepath.Join(main, "notignored.txt"), "n")
	putFile(t, filepath.Join(main, ".sandbox", "policy.yaml"), "p")
	putFile(t, filepath.Join(main, "kept.local"), "main's")
	putFile(t, filepath.Join(wt, "kept.local"), "checkout's")
	os.Symlink("/etc/passwd", filepath.Join(main, "link.env"))
	c, err := copyIncluded(context.Background(), main, wt)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(c.Files)
	if want := []string{".env", "secrets/k", "sub/x.local"}; !slices.Equal(c.Files, want) {
		t.Errorf("copied %q, want %q", c.Files, want)
	}
	skipped := strings.Join(c.Skipped, "\n")
	if !strings.Contains(skipped, "link.env: not a regular file") || !strings.Contains(skipped, "kept.local: the checkout has it") {
		t.Errorf("skipped: %s", skipped)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "kept.local")); string(b) != "checkout's" {
		t.Errorf("kept.local = %q", b)
	}
	for _, p := range []string{"notignored.txt", ".sandbox/policy.yaml", "link.env"} {
		if _, err := os.Lstat(filepath.Join(wt, p)); err == nil {
			t.Errorf("%s was copied", p)
		}
	}
	if fi, err := os.Stat(filepath.Join(wt, ".env")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf(".env: %v %v", fi, err)
	}
}

func TestCopyIncludedNone(t *testing.T) {
	t.Parallel()
	c, err := copyIncluded(context.Background(), t.TempDir(), t.TempDir())
	if err != nil || len(c.Files)+len(c.Skipped) != 0 {
		t.Errorf("without %s: %+v %v", IncludeFile, c, err)
	}
}

func TestMainOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/r":                            "/r",
		"/r/.sandbox/worktrees/a":       "/r",
		"/r/x/worktrees/a":              "/r/x/worktrees/a",
		"/r/.sandbox/worktrees/a/inner": "/r/.sandbox/worktrees/a/inner",
	} {
		if got := MainOf(folder.Folder{Root: in}).Root; got != want {
			t.Errorf("MainOf(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestParseShortstat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Diffstat{
		" 3 files changed, 10 insertions(+), 2 deletions(-)\n": {3, 10, 2},
		" 1 file changed, 1 deletion(-)\n":                     {1, 0, 1},
		"":                                                     {},
	} {
		if got := parseShortstat(in); got != want {
			t.Errorf("parseShortstat(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestCappedLog(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := &capped{w: &b, n: 10}
	c.Write([]byte("12345"))
	c.Write([]byte("67890abc"))
	c.Write([]byte("more"))
	if got := b.String(); !strings.HasPrefix(got, "1234567890\n") || strings.Contains(got, "abc") || strings.Contains(got, "more") {
		t.Errorf("capped log = %q", got)
	}
}

// The agents spawn can start come from the one registry of agents.
func TestKnownAgentsLaunch(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"claude", "codex", "gemini"} {
		a, ok := adapter.Lookup(name)
		if !ok || a.Launch == nil || a.Launch.Command != name {
			t.Errorf("%s: no Launch", name)
		}
	}
	_, argv, err := argvFor(&SpawnOptions{Task: "t", Headless: true}, false)
	if err != nil || !slices.Equal(argv, []string{"claude", "-p", "t"}) {
		t.Errorf("default agent: %q %v", argv, err)
	}
	if _, argv, _ := argvFor(&SpawnOptions{Agent: "codex", Task: "t", Headless: true}, false); !slices.Equal(argv, []string{"codex", "exec", "t"}) {
		t.Errorf("codex headless: %q", argv)
	}
	if agent, argv, _ := argvFor(&SpawnOptions{Argv: []string{"sh"}}, false); agent != CommandAgent || argv[0] != "sh" {
		t.Errorf("a command: %s %q", agent, argv)
	}
}

// A file's name is never read as a pathspec: ":(top).env" is not .env
// (which git ignores), and ":!keep.env" does not make git fail.
func TestCopyIncludedNamesThatLookLikePathspecs(t *testing.T) {
	t.Parallel()
	testenv.RequireCommand(t, "git")
	main, wt := t.TempDir(), t.TempDir()
	gitIn(t, main, "init", "-q")
	putFile(t, filepath.Join(main, ".gitignore"), ".env\nnode_modules/\n")
	putFile(t, filepath.Join(main, IncludeFile), "*env\n")
	for _, p := range []string{".env", ":(top).env", ":!keep.env", "node_modules/pkg/.env", "plain.env"} {
		putFile(t, filepath.Join(main, p), p)
	}
	c, err := copyIncluded(context.Background(), main, wt)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(c.Files)
	if want := []string{".env", "node_modules/pkg/.env"}; !slices.Equal(c.Files, want) {
		t.Errorf("copied %q, want %q", c.Files, want)
	}
}
