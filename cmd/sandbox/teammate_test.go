package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// user is one person on their own machine: a per-user state dir, a home,
// and a sandbox binary at a path of their own, first on PATH.
type user struct {
	name, state, bin string
}

func newUser(t *testing.T, base, name string) user {
	t.Helper()
	u := user{name: name, state: filepath.Join(base, name, "state"), bin: filepath.Join(base, name, "bin")}
	for _, d := range []string{u.state, u.bin, filepath.Join(base, name, "home")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary named sandbox runs main (TestMain).
	if err := os.Link(exe, filepath.Join(u.bin, "sandbox")); err != nil {
		data, rerr := os.ReadFile(exe)
		if rerr != nil || os.WriteFile(filepath.Join(u.bin, "sandbox"), data, 0o755) != nil {
			t.Fatalf("installing sandbox for %s: %v", name, err)
		}
	}
	return u
}

func (u user) env(path string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "XDG_STATE_HOME", "HOME", approverMainVar:
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+path, "XDG_STATE_HOME="+u.state, "HOME="+filepath.Join(filepath.Dir(u.state), "home"),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME="+u.name,
		"GIT_AUTHOR_EMAIL="+u.name+"@example.com", "GIT_COMMITTER_NAME="+u.name, "GIT_COMMITTER_EMAIL="+u.name+"@example.com")
}

// run runs argv in dir as u, with u's sandbox first on PATH; stdin may be "".
func (u user) run(t *testing.T, dir, stdin string, argv ...string) (code int, stdout, stderr string) {
	t.Helper()
	return u.runPath(t, u.bin+":/usr/local/bin:/usr/bin:/bin", dir, stdin, argv...)
}

func (u user) runPath(t *testing.T, path, dir, stdin string, argv ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if argv[0] == "sandbox" {
		cmd.Path = filepath.Join(u.bin, "sandbox")
	}
	cmd.Dir, cmd.Env, cmd.Stdin = dir, u.env(path), strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func (u user) must(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	code, out, errs := u.run(t, dir, "", argv...)
	if code != 0 {
		t.Fatalf("%s: %v: exit %d\n%s%s", u.name, argv, code, out, errs)
	}
	return out
}

// committedHook is the PreToolUse command line in the clone's
// .claude/settings.json.
func committedHook(t *testing.T, root string) string {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	data, err := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
	if err != nil || json.Unmarshal(data, &s) != nil || len(s.Hooks["PreToolUse"]) == 0 {
		t.Fatalf("settings.json: %v\n%s", err, data)
	}
	return s.Hooks["PreToolUse"][0].Hooks[0].Command
}

// TestTeammate: alice initialises and commits a project; bob clones it
// on his machine (his own state dir, his binary elsewhere). The committed
// wiring names no path of alice's, bob's agent hooks run his binary (and
// refuse, saying what to run, until he accepts), his first run says one
// true thing and his first acceptance is guided, and
// nothing of alice's state is visible or touched.
func TestTeammate(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the committed hook line is a POSIX shell line")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	alice, bob := newUser(t, base, "alice"), newUser(t, base, "bob")
	proj := filepath.Join(base, "alice", "proj")
	os.MkdirAll(proj, 0o755)
	alice.must(t, proj, "git", "init", "-q")
	out := alice.must(t, proj, "sandbox", "init", "--claude", "--mcp")
	if strings.Contains(out, "warning") {
		t.Errorf("alice's init warned:\n%s", out)
	}
	alice.must(t, proj, "git", "add", "-A")
	alice.must(t, proj, "git", "commit", "-qm", "sandbox")
	aliceState := snapshot(t, alice.state)

	clone := filepath.Join(base, "bob", "proj")
	bob.must(t, base, "git", "clone", "-q", proj, clone)
	files := bob.must(t, clone, "git", "ls-files")
	for _, want := range []string{".sandbox/policy.yaml", ".sandbox/.gitignore", ".sandbox/installed.json", ".claude/settings.json", ".mcp.json"} {
		if !strings.Contains(files, want+"\n") {
			t.Errorf("%s is not committed:\n%s", want, files)
		}
	}
	for _, f := range []string{".claude/settings.json", ".mcp.json", ".sandbox/installed.json"} {
		data, _ := os.ReadFile(filepath.Join(clone, f))
		if strings.Contains(string(data), filepath.Join(base, "alice")) {
			t.Errorf("the committed %s names a path of alice's:\n%s", f, data)
		}
	}

	hookLine := committedHook(t, clone)
	event := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"` + clone + `"}`
	write := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"t1","cwd":"` + clone +
		`","tool_input":{"file_path":"` + clone + `/.sandbox/policy.yaml","content":"x"}}`
	code, out, errs := bob.run(t, clone, write, "/bin/sh", "-c", hookLine)
	if code != 2 || !strings.Contains(errs, "run `sandbox policy accept` in "+clone) {
		t.Errorf("bob's hook before his first acceptance: %d, want 2 (refused) saying what to run\n%s%s", code, out, errs)
	}
	code, _, errs = bob.runPath(t, "/usr/bin:/bin", clone, write, "/bin/sh", "-c", hookLine)
	if code != 2 || !strings.Contains(errs, "not installed or not on PATH") {
		t.Errorf("without sandbox on PATH the committed hook: %d %q", code, errs)
	}

	code, _, errs = bob.run(t, clone, "", "sandbox", "check", "--script", "git status")
	if code != 10 || strings.Count(errs, "warning") != 1 || !strings.Contains(errs, "on this machine yet") {
		t.Errorf("bob's check before accepting: %d, want 10 and one warning:\n%s", code, errs)
	}
	code, out, errs = bob.run(t, clone, "", "sandbox", "policy", "accept")
	if code == 0 || !strings.Contains(out, "No policy is accepted for "+clone+" on this machine yet") ||
		!strings.Contains(out, "   1  ") || !strings.Contains(errs, "--yes") {
		t.Errorf("bob's first accept off a terminal: %d\n%s%s", code, out, errs)
	}
	bob.must(t, clone, "sandbox", "policy", "accept", "--yes")
	if code, _, errs := bob.run(t, clone, "", "sandbox", "check", "--script", "git status"); code != 0 || errs != "" {
		t.Errorf("bob's check after accepting: %d %s", code, errs)
	}

	code, brief, errs := bob.run(t, clone, event, "/bin/sh", "-c", hookLine)
	if code != 0 || !strings.Contains(brief, clone) || !strings.Contains(brief, "no approver is watching") {
		t.Errorf("bob's SessionStart through the committed hook: %d\n%s%s", code, brief, errs)
	}
	code, out, errs = bob.run(t, clone, write, "/bin/sh", "-c", hookLine)
	if code != 0 || !strings.Contains(out, `"deny"`) {
		t.Errorf("bob's PreToolUse through the committed hook: %d\n%s%s", code, out, errs)
	}
	out = bob.must(t, clone, "sandbox", "doctor")
	if !strings.Contains(out, "runs the `sandbox` on PATH ("+filepath.Join(bob.bin, "sandbox")+")") {
		t.Errorf("bob's doctor:\n%s", out)
	}
	if !equalSnapshots(aliceState, snapshot(t, alice.state)) {
		t.Error("bob's commands changed alice's per-user state")
	}
	if key, _ := os.ReadFile(filepath.Join(bob.state, "sandbox", "key")); len(key) == 0 ||
		string(key) == aliceState[filepath.Join("sandbox", "key")] {
		t.Error("bob has no key of his own")
	}
}
