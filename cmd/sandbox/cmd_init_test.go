package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// snapshot maps every path under root to its content ("" for dirs).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			out[rel] = string(b)
			return err
		}
		out[rel] = fi.Mode().Type().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestInitCreatesLayoutAndIsIdempotent(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, _ := filepath.EvalSymlinks(t.TempDir())
	if code, _, errs := run(t, root, "init", root); code != 0 {
		t.Fatalf("init: %d %s", code, errs)
	}
	f := folder.Folder{Root: root}
	for _, d := range f.Subdirs() {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			t.Errorf("init did not create %s: %v", d, err)
		}
	}
	if code, out, _ := run(t, root, "check", "--script", "git status"); code != 0 {
		t.Fatalf("the policy init wrote is not accepted: check exit %d\n%s", code, out)
	}
	before := snapshot(t, root)
	if code, _, errs := run(t, root, "init", root); code != 0 {
		t.Fatalf("second init: %d %s", code, errs)
	}
	if !equalSnapshots(before, snapshot(t, root)) {
		t.Fatal("a second init changed the folder")
	}
}

func TestInitNeverOverwritesOrAcceptsAnEditedPolicy(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, _ := filepath.EvalSymlinks(t.TempDir())
	run(t, root, "init", root)
	f := folder.Folder{Root: root}
	edited := "version: 1\nshell:\n  allow: ['**']\n"
	if err := os.WriteFile(f.Policy(), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, root, "init", root)
	if code != 0 || !strings.Contains(out, "not accepted") {
		t.Fatalf("init over an edited policy: %d %q", code, out)
	}
	if got, _ := os.ReadFile(f.Policy()); string(got) != edited {
		t.Fatal("init overwrote an edited policy")
	}
	if code, _, _ := run(t, root, "check", "--script", "curl example.com"); code != 10 {
		t.Fatalf("an unaccepted allow-everything policy took effect: exit %d", code)
	}
}

func TestInitRefusesAFileNamedSandbox(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, folder.DirName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := run(t, root, "init", root); code == 0 {
		t.Fatal("init succeeded over a file named .sandbox")
	}
}

func TestUninstallRemovesExactlyWhatInitAdded(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, _ := filepath.EvalSymlinks(t.TempDir())
	run(t, root, "init", root)
	userFile := filepath.Join(root, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(userFile), 0o755)
	mine := "{\n  \"model\": \"opus\"\n}\n"
	os.WriteFile(userFile, []byte(mine), 0o644)
	before := snapshot(t, root)
	if code, _, errs := run(t, root, "init", root, "--claude"); code != 0 {
		t.Fatalf("init --claude: %d %s", code, errs)
	}
	if got, _ := os.ReadFile(userFile); !strings.Contains(string(got), "sandbox") || !strings.Contains(string(got), "opus") {
		t.Fatalf("hooks not merged into the user's settings:\n%s", got)
	}
	if code, _, errs := run(t, root, "uninstall", root, "--yes"); code != 0 {
		t.Fatalf("uninstall: %d %s", code, errs)
	}
	if !equalSnapshots(before, snapshot(t, root)) {
		t.Fatalf("uninstall did not restore the folder:\n%v\n%v", before, snapshot(t, root))
	}
	if code, _, errs := run(t, root, "uninstall", root, "--purge", "--yes"); code != 0 {
		t.Fatalf("uninstall --purge: %d %s", code, errs)
	}
	if _, err := os.Lstat(filepath.Join(root, folder.DirName)); !os.IsNotExist(err) {
		t.Fatal("--purge kept .sandbox/")
	}
}

func TestInitUnknownIntegrationSaysNotAvailable(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := t.TempDir()
	for _, a := range adapter.Agents() {
		code, _, errs := run(t, root, "init", root, "--"+a.Name)
		if code != 0 && !strings.Contains(errs, "not available") {
			t.Errorf("init --%s failed without saying why: %d %s", a.Name, code, errs)
		}
	}
}

// TestInitKeepsBusStateOutOfGit: after init, `git add -A` stages the policy
// and the bus's .gitignore, never requests, results, logs or the audit
// log; a re-run on a project whose .gitignore the user edited (or that
// predates it) puts the rules back on top and keeps the user's lines.
func TestInitKeepsBusStateOutOfGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, _ := filepath.EvalSymlinks(t.TempDir())
	gitIn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitIn("init", "-q")
	if code, _, errs := run(t, root, "init", root); code != 0 {
		t.Fatalf("init: %d %s", code, errs)
	}
	f := folder.Folder{Root: root}
	for _, p := range []string{filepath.Join(f.Done(), "r1.json"), f.ResultLog("r1"), filepath.Join(f.Originals(), "o1"), filepath.Join(f.Pending(), "r2.json")} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want := "A  .sandbox/.gitignore\nA  .sandbox/policy.yaml\n"
	gitIn("add", "-A")
	if got := gitIn("status", "--porcelain"); got != want {
		t.Errorf("git status after init:\n%s\nwant:\n%s", got, want)
	}

	user := "# mine\n!/notes.md\n"
	if err := os.WriteFile(f.GitIgnore(), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, root, "init", root); code != 0 {
		t.Fatalf("init again: %d %s", code, errs)
	}
	b, err := os.ReadFile(f.GitIgnore())
	if err != nil || !strings.HasSuffix(string(b), user) || !strings.Contains(string(b), "\n*\n") {
		t.Errorf("re-run lost the rules or the user's lines:\n%s (%v)", b, err)
	}
	before := string(b)
	run(t, root, "init", root)
	if b, _ := os.ReadFile(f.GitIgnore()); string(b) != before {
		t.Errorf("a third init changed .gitignore again:\n%s", b)
	}
	gitIn("add", "-A")
	if got := gitIn("status", "--porcelain"); got != want {
		t.Errorf("git status after re-run:\n%s\nwant:\n%s", got, want)
	}
}
