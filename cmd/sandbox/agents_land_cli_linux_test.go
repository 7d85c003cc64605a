//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	fleet "github.com/sandbox-dev/sandbox/agents"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
)

// landEnv is MAIN for the land tests: a git repository with an accepted
// policy, an agent registered with its worktree on sandbox/NAME, and the
// real sandbox binary (the approved apply-land runs it).
type landEnv struct {
	t          *testing.T
	root, name string
	worktree   string
	bin        string
}

func newLandEnv(t *testing.T, name string, policyExtra string) *landEnv {
	t.Helper()
	root := project(t, false)
	data := append(policy.DefaultYAML(), policyExtra...)
	os.WriteFile(filepath.Join(root, ".sandbox", "policy.yaml"), data, 0o644)
	if err := store.Accept(folder.Folder{Root: root}, stateOf(root), data); err != nil {
		t.Fatal(err)
	}
	e := &landEnv{t: t, root: root, name: name, worktree: filepath.Join(root, ".sandbox", "worktrees", name)}
	e.git(root, "init", "-q", "-b", "main")
	e.git(root, "config", "user.name", "Lander")
	e.git(root, "config", "user.email", "lander@example.com")
	e.commit(root, "base", ".gitignore", ".sandbox/\nbin/\n", "a.txt", "one\ntwo\nthree\n", "u.txt", "user\n")
	e.git(root, "worktree", "add", "-q", "-b", "sandbox/"+name, e.worktree)
	reg, err := fleet.Open(folder.Folder{Root: root}, stateOf(root).Dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := fleet.Record{Name: name, Agent: "command", Argv: []string{"true"}, Branch: "sandbox/" + name,
		Base: e.rev("main"), BaseRef: "HEAD", Worktree: e.worktree, State: fleet.Done, Created: time.Now()}
	if err := reg.Put(rec); err != nil {
		t.Fatal(err)
	}
	e.bin = sandboxBinary(t)
	return e
}

func (e *landEnv) git(dir string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (e *landEnv) commit(dir, msg string, files ...string) string {
	e.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			e.t.Fatal(err)
		}
		e.git(dir, "add", "--", files[i])
	}
	e.git(dir, "commit", "-q", "-m", msg)
	return e.git(dir, "rev-parse", "HEAD")
}

func (e *landEnv) rev(r string) string { return e.git(e.root, "rev-parse", r) }

// sandbox runs the real binary in MAIN with the project's state.
func (e *landEnv) sandbox(env []string, args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.root
	cmd.Env = append(append(append(os.Environ(), stateEnv(e.root)...), "SANDBOX_SESSION=land-test"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		e.t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

var landIDRe = regexp.MustCompile(`(?m)^([0-9A-Za-z_-]{8,})\s*$`)

// request asks for a land with --no-wait and returns the request id.
func (e *landEnv) request(args ...string) string {
	e.t.Helper()
	code, out, errs := e.sandbox(nil, append([]string{"agents", "land", "--no-wait", e.name}, args...)...)
	m := landIDRe.FindStringSubmatch(out)
	if code != 0 || m == nil {
		e.t.Fatalf("land: exit %d\n%s%s", code, out, errs)
	}
	return m[1]
}

// decide approves or denies request id with the CLI approver (the
// broker of its approval).
func (e *landEnv) decide(verb, id string, extra ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	_, out, errs := e.sandbox(nil, "list", "--json", "--state", "pending")
	m := regexp.MustCompile(`"hash":\s*"([0-9a-f]+)"`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, id) {
		e.t.Fatalf("request %s is not pending:\n%s%s", id, out, errs)
	}
	if verb == "deny" {
		return e.sandbox(nil, "deny", id)
	}
	return e.sandbox(nil, append([]string{"approve", "--hash", m[1], id}, extra...)...)
}

// state is what a land that changes nothing leaves as it was.
func (e *landEnv) state() string {
	return e.git(e.root, "for-each-ref", "--format=%(refname) %(objectname)") + "\n" +
		e.git(e.root, "ls-files", "--stage") + "\n" + e.git(e.root, "status", "--porcelain", "--untracked-files=all")
}

// TestAgentsLandApproved: land asks and waits, the CLI approver
// approves, the broker merges the pinned commit into MAIN's checked-out
// main in the grant jail and land prints the outcome; the uncommitted
// change in MAIN survives; the agent's commit made after the request
// does not land; the request, decision and outcome are audited.
func TestAgentsLandApproved(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	e := newLandEnv(t, "fixer", "")
	head := e.commit(e.worktree, "agent work", "a.txt", "one\nTWO\nthree\n")
	os.WriteFile(filepath.Join(e.root, "u.txt"), []byte("uncommitted\n"), 0o644)
	target := e.rev("main")
	land, id := e.startLand()
	later := e.commit(e.worktree, "after the request", "later.txt", "not approved\n")
	_, show, _ := e.sandbox(nil, "show", id)
	for _, s := range []string{"land agent fixer: merge commit " + head[:12], "sandbox/fixer at " + head, "main at " + target,
		"a.txt | 2 +-", "apply-land", "--head", "test:    none"} {
		if !strings.Contains(show, s) {
			t.Errorf("show lacks %q:\n%s", s, show)
		}
	}
	if code, out, errs := e.decide("approve", id); code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	if code, out := land(); code != 0 || !strings.Contains(out, "landed sandbox/fixer at "+head[:12]) {
		t.Fatalf("land: exit %d\n%s", code, out)
	}
	if got := e.git(e.root, "rev-parse", "main^1", "main^2"); got != target+"\n"+head {
		t.Fatalf("main's parents: %s (want %s and the pinned %s, not %s)", got, target, head, later)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "u.txt")); string(b) != "uncommitted\n" {
		t.Fatalf("u.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "a.txt")); string(b) != "one\nTWO\nthree\n" {
		t.Fatalf("a.txt = %q", b)
	}
	done, _ := os.ReadFile(filepath.Join(e.root, ".sandbox", "escalations", "done", id+".json"))
	if !strings.Contains(string(done), "runs in a grant jail") {
		t.Errorf("the land did not run in the grant jail:\n%s", done)
	}
	_, audit, _ := e.sandbox(nil, "audit", "show")
	for _, ev := range []string{"request.created", "request.approved", "exec.end"} {
		if !strings.Contains(audit, ev) || !strings.Contains(audit, id) {
			t.Errorf("the audit log lacks %s of %s:\n%s", ev, id, audit)
		}
	}
}

// startLand starts a waiting `sandbox agents land NAME ARGS` and returns
// a function that waits for it (exit code, stdout and stderr), and the
// request's id once it is pending.
func (e *landEnv) startLand(args ...string) (wait func() (int, string), id string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, append([]string{"agents", "land", e.name}, args...)...)
	cmd.Dir, cmd.Env = e.root, append(os.Environ(), stateEnv(e.root)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	wait = func() (int, string) {
		cmd.Wait()
		return cmd.ProcessState.ExitCode(), out.String()
	}
	deadline := time.Now().Add(60 * time.Second)
	for id == "" && time.Now().Before(deadline) {
		_, list, _ := e.sandbox(nil, "list", "--json", "--state", "pending")
		if m := regexp.MustCompile(`"id":\s*"([^"]+)"`).FindStringSubmatch(list); m != nil {
			id = m[1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	if id == "" {
		cmd.Process.Kill()
		_, o := wait()
		e.t.Fatalf("no land request appeared:\n%s", o)
	}
	return wait, id
}

// TestAgentsLandNoWait: --no-wait prints the request's id and returns;
// nobody waits for the output, so approvers show it as stale and approve
// it deliberately (--stale-ok); `sandbox result` has the outcome.
func TestAgentsLandNoWait(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	e := newLandEnv(t, "later", "")
	head := e.commit(e.worktree, "agent work", "x.txt", "x\n")
	id := e.request("--rebase")
	if code, out, errs := e.decide("approve", id, "--stale-ok"); code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	if e.rev("main") != head {
		t.Fatalf("main = %s, want the fast-forwarded %s", e.rev("main"), head)
	}
	code, out, errs := e.sandbox(nil, "result", id)
	if code != 0 || !strings.Contains(out+errs, "landed sandbox/later") {
		t.Fatalf("result: exit %d\n%s%s", code, out, errs)
	}
}

// TestAgentsLandDenied: a denied land changes nothing, the waiting land
// exits 126, and the denial is audited.
func TestAgentsLandDenied(t *testing.T) {
	t.Parallel()
	e := newLandEnv(t, "nope", "")
	e.commit(e.worktree, "agent work", "a.txt", "one\nTWO\nthree\n")
	before := e.state()
	land, id := e.startLand("--squash")
	if code, out, errs := e.decide("deny", id); code != 0 {
		t.Fatalf("deny: %d %s%s", code, out, errs)
	}
	if code, out := land(); code != exitDenied {
		t.Fatalf("land exit %d, want %d\n%s", code, exitDenied, out)
	}
	if e.state() != before {
		t.Fatal("a denied land changed MAIN")
	}
	if _, audit, _ := e.sandbox(nil, "audit", "show"); !strings.Contains(audit, "request.denied") || !strings.Contains(audit, id) {
		t.Fatalf("the audit log lacks the denial of %s:\n%s", id, audit)
	}
}

// TestAgentsLandRefusedBeforeAsking: a conflict names its files, and
// usage errors (invalid NAME, a NAME not in the registry, a branch that
// is gone, two modes, --pr without gh) exit 2; none creates a request
// or changes MAIN.
func TestAgentsLandRefusedBeforeAsking(t *testing.T) {
	t.Parallel()
	e := newLandEnv(t, "clash", "")
	e.commit(e.worktree, "agent", "a.txt", "one\nAGENT\nthree\n")
	e.commit(e.root, "user", "a.txt", "one\nUSER\nthree\n")
	before := e.state()
	code, out, errs := e.sandbox(nil, "agents", "land", "clash")
	if code != exitFailure || !strings.Contains(errs, "conflicts in 1 file(s): a.txt; nothing changed") || !strings.Contains(errs, "CONFLICT") || !strings.Contains(errs, "have the agent merge the target") {
		t.Fatalf("conflict: exit %d\n%s%s", code, out, errs)
	}
	reg, _ := fleet.Open(folder.Folder{Root: e.root}, stateOf(e.root).Dir)
	reg.Put(fleet.Record{Name: "gone", Branch: "sandbox/gone", Worktree: filepath.Join(e.root, ".sandbox", "worktrees", "gone"), State: fleet.Done})
	emptyPath := t.TempDir()
	os.Symlink(mustLook(t, "git"), filepath.Join(emptyPath, "git"))
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"invalid name", nil, []string{"../x"}, "invalid agent name"},
		{"unknown", nil, []string{"ghost"}, "no such agent"},
		{"branch gone", nil, []string{"gone"}, "no such branch"},
		{"two modes", nil, []string{"clash", "--merge", "--rebase"}, "at most one"},
		{"pr without gh", []string{"PATH=" + emptyPath}, []string{"clash", "--pr"}, "gh is not on PATH"},
	} {
		code, out, errs := e.sandbox(tc.env, append([]string{"agents", "land"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", tc.name, code, exitUsage, tc.want, out, errs)
		}
	}
	if _, out, _ := e.sandbox(nil, "list", "--json"); strings.Contains(out, `"id"`) {
		t.Fatalf("a refused land left a request:\n%s", out)
	}
	if e.state() != before {
		t.Fatal("a refused land changed MAIN")
	}
}

func mustLook(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentsLandRunsTheTestInTheJail: the policy's agents.test runs in
// the agent's worktree inside a jail, and the request shows its result
// and the end of its output.
func TestAgentsLandRunsTheTestInTheJail(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	e := newLandEnv(t, "tested", "\nagents:\n  test: \"pwd; echo from-the-test; touch /etc/land-test-escape 2>/dev/null || echo etc-read-only; exit 3\"\n")
	e.commit(e.worktree, "agent work", "b.txt", "b\n")
	id := e.request()
	_, show, _ := e.sandbox(nil, "show", id)
	for _, s := range []string{"FAILED (exit 3)", "from-the-test", "etc-read-only", e.worktree} {
		if !strings.Contains(show, s) {
			t.Errorf("show lacks %q:\n%s", s, show)
		}
	}
	if _, err := os.Stat("/etc/land-test-escape"); err == nil {
		os.Remove("/etc/land-test-escape")
		t.Fatal("the test command wrote outside its jail")
	}
}

// TestAgentsLandIgnoresPlantedRepository: the agent repoints its
// worktree's .git file at a repository it planted (an fsmonitor in its
// config, hooks) and plants hooks in MAIN's .git: neither land nor the
// approved apply-land runs any of it, and the real commit lands.
func TestAgentsLandIgnoresPlantedRepository(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	e := newLandEnv(t, "evil", "")
	head := e.commit(e.worktree, "agent work", "x.txt", "x\n")
	marker := filepath.Join(e.root, "planted-code-ran")
	script := filepath.Join(e.root, "evil.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\n"), 0o755)
	planted := filepath.Join(e.worktree, "planted")
	e.git(e.worktree, "init", "-q", planted)
	for _, gitDir := range []string{filepath.Join(planted, ".git"), filepath.Join(e.root, ".git")} {
		for _, h := range []string{"post-merge", "post-checkout", "reference-transaction", "pre-merge-commit"} {
			os.WriteFile(filepath.Join(gitDir, "hooks", h), []byte("#!/bin/sh\n"+script+" hook "+h+"\n"), 0o755)
		}
	}
	f, _ := os.OpenFile(filepath.Join(planted, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tfsmonitor = " + script + "\n")
	f.Close()
	os.WriteFile(filepath.Join(e.worktree, ".git"), []byte("gitdir: "+filepath.Join(planted, ".git")+"\n"), 0o644)
	land, id := e.startLand()
	if code, out, errs := e.decide("approve", id); code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	if code, out := land(); code != 0 {
		t.Fatalf("land: exit %d\n%s", code, out)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("planted code ran during the land:\n%s", b)
	}
	if got := e.git(e.root, "-c", "core.hooksPath=/dev/null", "rev-parse", "main^2"); got != head {
		t.Fatalf("main^2 = %s, want %s", got, head)
	}
}

// TestAgentsLandPush: --push pushes the landed target to its upstream
// (a repository on this machine) in the same approval.
func TestAgentsLandPush(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	e := newLandEnv(t, "pusher", "")
	remote := filepath.Join(t.TempDir(), "remote.git")
	e.git(e.root, "init", "-q", "--bare", remote)
	e.git(e.root, "remote", "add", "origin", remote)
	e.git(e.root, "push", "-q", "-u", "origin", "main")
	e.commit(e.worktree, "agent work", "x.txt", "x\n")
	land, id := e.startLand("--squash", "--push")
	_, show, _ := e.sandbox(nil, "show", id)
	if !strings.Contains(show, "git push origin refs/heads/main:refs/heads/main") {
		t.Fatalf("show:\n%s", show)
	}
	if code, out, errs := e.decide("approve", id); code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	if code, out := land(); code != 0 {
		t.Fatalf("land: exit %d\n%s", code, out)
	}
	if got := e.git(remote, "rev-parse", "main"); got != e.rev("main") || e.git(e.root, "log", "-1", "--format=%s", "main") != "Squash sandbox/pusher (agent pusher) at "+e.rev("sandbox/pusher")[:12]+" into main" {
		t.Fatalf("remote main %s, local main %s", got, e.rev("main"))
	}
}

// TestAgentsLandPR: with gh on PATH, --pr asks to push the pinned commit
// as the agent's branch and open a pull request, landing nothing
// locally; denied, nothing changes.
func TestAgentsLandPR(t *testing.T) {
	t.Parallel()
	e := newLandEnv(t, "review", "")
	head := e.commit(e.worktree, "agent work", "x.txt", "x\n")
	e.git(e.root, "remote", "add", "origin", "https://example.com/r.git")
	path := t.TempDir()
	os.Symlink(mustLook(t, "git"), filepath.Join(path, "git"))
	os.WriteFile(filepath.Join(path, "gh"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	before := e.state()
	code, out, errs := e.sandbox([]string{"PATH=" + path}, "agents", "land", "--no-wait", "--pr", e.name)
	m := landIDRe.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("land --pr: exit %d\n%s%s", code, out, errs)
	}
	_, show, _ := e.sandbox(nil, "show", m[1])
	for _, s := range []string{"git push origin " + head + ":refs/heads/sandbox/review", "gh pr create --base main --head sandbox/review",
		"open a pull request into main (MAIN changes nothing)"} {
		if !strings.Contains(show, s) {
			t.Errorf("show lacks %q:\n%s", s, show)
		}
	}
	if code, out, errs := e.decide("deny", m[1]); code != 0 {
		t.Fatalf("deny: %d %s%s", code, out, errs)
	}
	if e.state() != before {
		t.Fatal("a denied pull request changed MAIN")
	}
}
