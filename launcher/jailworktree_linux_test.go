//go:build linux

package launcher

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"golang.org/x/sys/unix"
)

func init() {
	probes["inode"] = func(a []string) error {
		var st unix.Stat_t
		if err := unix.Lstat(a[0], &st); err != nil {
			return err
		}
		return verbatim(fmt.Sprintf("ino %d", st.Ino))
	}
	probes["remove"] = func(a []string) error { return os.Remove(a[0]) }
	probes["mkdir"] = func(a []string) error { return os.Mkdir(a[0], 0o755) }
	probes["symlink"] = func(a []string) error { return os.Symlink("/etc/passwd", a[0]) }
	// replace writes a new file beside a[0] and renames it over a[0]
	probes["replace"] = func(a []string) error {
		tmp := a[0] + ".probe-new"
		if err := os.WriteFile(tmp, []byte("x"), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, a[0])
	}
}

// worktreeJail is a repository MAIN with linked worktrees at
// MAIN/.sandbox/worktrees/a and b (branches sandbox/a and sandbox/b), as
// `sandbox agents spawn` makes them; the jail's project is a, with a bus
// of its own.
type worktreeJail struct {
	*testJail
	git    string
	main   string // MAIN
	common string // MAIN/.git
	admin  string // MAIN/.git/worktrees/a
	wt     string // MAIN/.sandbox/worktrees/a
	env    []string
}

// newWorktreeJail makes MAIN outside the scratch trees, which the jail
// replaces with its own (newWorktreeJailIn for one under /tmp).
func newWorktreeJail(t *testing.T) *worktreeJail {
	t.Helper()
	return newWorktreeJailIn(t, outsideScratch(t))
}

func newWorktreeJailIn(t *testing.T, base string) *worktreeJail {
	t.Helper()
	e := &worktreeJail{testJail: newJailEnvB(t), git: testenv.RequireCommand(t, "git")}
	e.main = filepath.Join(base, "main")
	e.common = filepath.Join(e.main, ".git")
	e.admin = filepath.Join(e.common, "worktrees", "a")
	e.wt = filepath.Join(e.main, ".sandbox", "worktrees", "a")
	e.env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	mustWrite(t, filepath.Join(e.main, "README"), "main\n")
	e.hostGit(t, "init", "-q", "-b", "main")
	e.hostGit(t, "add", "README")
	e.hostGit(t, "commit", "-q", "-m", "base")
	e.hostGit(t, "worktree", "add", "-q", e.wt, "-b", "sandbox/a")
	e.hostGit(t, "worktree", "add", "-q", filepath.Join(e.main, ".sandbox", "worktrees", "b"), "-b", "sandbox/b")
	for _, d := range []string{"remotes", "branches", "info"} {
		if err := os.MkdirAll(filepath.Join(e.common, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(e.common, "remotes", "origin"), "URL: /nowhere\n")
	e.project = busFolder(t, e.wt)
	return e
}

func (e *worktreeJail) hostGit(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(e.git, append([]string{"-C", e.main}, args...)...)
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (e *worktreeJail) options(m jailMode, argv ...string) Options {
	o := e.testJail.options(m, argv...)
	o.Env = append(slices.Clone(e.env), probeEnv+"=1")
	return o
}

// Inside a jail rooted in a linked worktree, git works as in the main
// worktree: add, commit, log, status, with the repository's config and
// packed refs; the commit is on sandbox/a in MAIN. Also with MAIN under
// /tmp, which the jail replaces with its own.
func TestJailWorktreeGitCommits(t *testing.T) {
	for _, where := range []string{"outside /tmp", "under /tmp"} {
		t.Run(where, func(t *testing.T) {
			base := outsideScratch(t)
			if where == "under /tmp" {
				base = t.TempDir()
			}
			testWorktreeGitCommits(t, newWorktreeJailIn(t, base))
		})
	}
}

func testWorktreeGitCommits(t *testing.T, e *worktreeJail) {
	e.hostGit(t, "config", "sandbox.probe", "seen")
	e.hostGit(t, "pack-refs", "--all")
	script := `set -e
cd "$1"
echo jailed > from-jail.txt
git add from-jail.txt
git commit -q -m 'from the jail'
git log --format=%s -1
git status --porcelain
echo "config $(git config sandbox.probe)"
echo "main $(git rev-parse --verify -q main)"
echo DONE`
	out, res := runJailed(t, e.options(jailModes[0], "/bin/sh", "-c", script, "sh", e.wt))
	if res.Code != 0 || !strings.Contains(out, "from the jail\n") || !strings.Contains(out, "DONE") {
		t.Fatalf("git in the worktree jail: exit %d:\n%s", res.Code, out)
	}
	if main := e.hostGit(t, "rev-parse", "main"); !strings.Contains(out, "config seen\n") || !strings.Contains(out, "main "+main+"\n") {
		t.Errorf("the repository's config or packed refs are not seen in the jail:\n%s", out)
	}
	if got := e.hostGit(t, "log", "-1", "--format=%s", "sandbox/a"); got != "from the jail" {
		t.Errorf("MAIN's sandbox/a is at %q, want the jail's commit", got)
	}
	if got := e.hostGit(t, "show", "sandbox/a:from-jail.txt"); got != "jailed" {
		t.Errorf("the jail's commit holds %q", got)
	}
	// the run's placeholders are gone: the worktree is not left locked,
	// and nothing stands at the protected names
	if got := e.hostGit(t, "worktree", "list", "--porcelain"); strings.Contains(got, "locked") {
		t.Errorf("worktree left locked:\n%s", got)
	}
	for _, p := range []string{filepath.Join(e.admin, "locked"), filepath.Join(e.admin, "config.worktree"),
		filepath.Join(e.common, "objects/info/alternates")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
}

// attempt is a write the jail must not make, or (ok) must.
type attempt struct {
	probe string
	args  []string
	ok    bool
	// onlyNS: expected to succeed with namespaces only (without them
	// Landlock cannot pin a missing name but by refusing every new entry
	// in its directory)
	onlyNS bool
}

// forbidExisting are the attacks on a name that exists: write into it
// (a directory) or over it (a file), replace, rename or remove it.
func forbidExisting(p string) []attempt {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	moved := p + ".moved"
	if fi.IsDir() {
		return []attempt{{probe: "write", args: []string{filepath.Join(p, "pre-commit")}},
			{probe: "rename", args: []string{p, moved}}}
	}
	return []attempt{{probe: "write", args: []string{p}}, {probe: "replace", args: []string{p}},
		{probe: "rename", args: []string{p, moved}}, {probe: "remove", args: []string{p}}}
}

// forbidMissing are the attacks on a name that does not exist: create
// it as a file, a directory or a link.
func forbidMissing(p string) []attempt {
	return []attempt{{probe: "write", args: []string{p}}, {probe: "mkdir", args: []string{p}},
		{probe: "symlink", args: []string{p}}}
}

// forbid is forbidExisting or forbidMissing, as p is.
func forbid(p string) []attempt {
	if _, err := os.Lstat(p); err != nil {
		return forbidMissing(p)
	}
	return forbidExisting(p)
}

// worktreeAttempts lists, by class, what a jail in worktree a may and
// may not write in the shared repository.
func (e *worktreeJail) attempts(t *testing.T) []attempt {
	var as []attempt
	// COMMON itself: every entry but the granted trees, and new names at
	// its top (the lock files of config and packed-refs among them)
	entries, err := os.ReadDir(e.common)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		p := filepath.Join(e.common, en.Name())
		if slices.Contains(append(slices.Clone(worktreeWritable), "worktrees"), en.Name()) {
			as = append(as, attempt{probe: "rename", args: []string{p, p + ".moved"}})
			continue
		}
		as = append(as, forbidExisting(p)...)
	}
	for _, name := range []string{"packed-refs", "packed-refs.lock", "config.lock", "shallow", "commondir", "new"} {
		as = append(as, forbid(filepath.Join(e.common, name))...)
	}
	// hooks, info, remotes, branches: new files inside, whatever exists
	for _, p := range []string{"hooks/pre-commit", "hooks/post-checkout", "info/exclude", "info/attributes",
		"remotes/upstream", "branches/x", "objects/info/alternates", "refs/replace/" + strings.Repeat("0", 40)} {
		as = append(as, forbid(filepath.Join(e.common, p))...)
	}
	// the worktree's own dir: its protected names; the dir itself
	for _, pr := range worktreeProtected {
		as = append(as, forbid(filepath.Join(e.admin, pr.name))...)
	}
	as = append(as, attempt{probe: "rename", args: []string{e.admin, e.admin + ".moved"}})
	// other worktrees' dirs, and new ones
	other := filepath.Join(e.common, "worktrees", "b")
	bEntries, _ := os.ReadDir(other)
	for _, en := range bEntries {
		as = append(as, forbidExisting(filepath.Join(other, en.Name()))...)
	}
	as = append(as, forbid(filepath.Join(other, "config.worktree"))...)
	as = append(as, forbid(filepath.Join(e.common, "worktrees", "c"))...)
	// the worktree's gitfile
	as = append(as, forbidExisting(filepath.Join(e.wt, ".git"))...)
	// what git needs: refs, reflogs, objects, the worktree's own state
	as = append(as,
		attempt{probe: "write", args: []string{filepath.Join(e.common, "refs/heads/probe-ok")}, ok: true},
		attempt{probe: "write", args: []string{filepath.Join(e.common, "logs/probe-ok")}, ok: true},
		attempt{probe: "write", args: []string{filepath.Join(e.common, "objects/pack/probe-ok")}, ok: true},
		attempt{probe: "mkdir", args: []string{filepath.Join(e.common, "objects/probe-ok-dir")}, ok: true, onlyNS: true},
		attempt{probe: "write", args: []string{filepath.Join(e.admin, "ORIG_HEAD")}, ok: true, onlyNS: true},
		attempt{probe: "write", args: []string{filepath.Join(e.admin, "HEAD")}, ok: true},
	)
	return as
}

// Every write outside what git needs fails from inside the jail, in both
// modes, and the names stay as they were.
func TestJailWorktreeForbiddenWrites(t *testing.T) {
	e := newWorktreeJail(t)
	attempts := e.attempts(t)
	cases := make([]probeCase, len(attempts))
	for i, a := range attempts {
		cases[i] = probeCase{a.probe + " " + strings.Join(a.args, " "), a.probe, a.args}
	}
	protected := e.snapshot(t)
	head := filepath.Join(e.admin, "HEAD")
	headWas, err := os.ReadFile(head)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			out, _ := runJailed(t, e.options(m, e.batchArgv(cases)...))
			got := batchResults(t, out, len(cases))
			for i, a := range attempts {
				want := a.ok && (!a.onlyNS || m.name == "namespaces")
				if (got[i] == "ok") != want {
					t.Errorf("%s: got %q, want ok=%v", cases[i].name, got[i], want)
				}
			}
			if now := e.snapshot(t); !maps.Equal(now, protected) {
				t.Errorf("protected names changed:\nbefore %v\nafter  %v", protected, now)
			}
			for _, a := range attempts {
				if a.ok && a.args[0] != head {
					os.Remove(a.args[0])
				}
			}
			mustWrite(t, head, string(headWas)) // the jail rewrote it
		})
	}
}

// snapshot is the content of the names a jail must leave alone.
func (e *worktreeJail) snapshot(t *testing.T) map[string]string {
	t.Helper()
	s := map[string]string{}
	for _, p := range []string{filepath.Join(e.wt, ".git"), filepath.Join(e.common, "config"),
		filepath.Join(e.admin, "commondir"), filepath.Join(e.admin, "gitdir"),
		filepath.Join(e.common, "worktrees/b/HEAD"), filepath.Join(e.common, "hooks/pre-commit"),
		filepath.Join(e.admin, "config.worktree"), filepath.Join(e.common, "objects/info/alternates"),
		filepath.Join(e.common, "packed-refs")} {
		b, err := os.ReadFile(p)
		if err != nil {
			s[p] = "missing"
			continue
		}
		s[p] = string(b)
	}
	return s
}

// A gitfile that does not check out grants nothing, and the jail still
// runs (git then fails in it, as it would without the grants): one that
// points at another worktree's dir, and one that is a symbolic link.
func TestJailWorktreeTamperedGitfile(t *testing.T) {
	tampers := []struct {
		name   string
		tamper func(t *testing.T, e *worktreeJail, gitfile string)
	}{
		{"points at another worktree", func(t *testing.T, e *worktreeJail, gitfile string) {
			mustWrite(t, gitfile, "gitdir: "+filepath.Join(e.common, "worktrees", "b")+"\n")
		}},
		{"symbolic link", func(t *testing.T, e *worktreeJail, gitfile string) {
			moved := filepath.Join(filepath.Dir(e.main), "gitfile")
			if err := os.Rename(gitfile, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, gitfile); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tampers {
		t.Run(tc.name, func(t *testing.T) {
			e := newWorktreeJail(t)
			tc.tamper(t, e, filepath.Join(e.wt, ".git"))
			var logs strings.Builder
			cases := []probeCase{
				{"refs", "write", []string{filepath.Join(e.common, "refs/heads/probe")}},
				{"objects", "write", []string{filepath.Join(e.common, "objects/pack/probe")}},
				{"own dir", "write", []string{filepath.Join(e.admin, "HEAD")}},
				{"other's dir", "write", []string{filepath.Join(e.common, "worktrees/b/HEAD")}},
			}
			o := e.options(jailModes[0], e.batchArgv(cases)...)
			o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			out, res := runJailed(t, o)
			if res.Code != 0 {
				t.Fatalf("the jail did not run: exit %d:\n%s", res.Code, out)
			}
			got := batchResults(t, out, len(cases))
			for i, c := range cases {
				if got[i] == "ok" {
					t.Errorf("%s %v: written through a tampered gitfile", c.probe, c.args)
				}
			}
			if !strings.Contains(logs.String(), "does not check out") {
				t.Errorf("no debug line on the refused gitfile:\n%s", logs.String())
			}
		})
	}
}

// swapJail runs a jail after a change made between the launcher's
// checks and the jail's start (once the spec is complete).
type swapJail struct {
	Jail
	swap func()
}

func (j swapJail) Start(ctx context.Context, spec *Spec) (Process, error) {
	if spec.Complete == nil {
		j.swap()
		return j.Jail.Start(ctx, spec)
	}
	complete := spec.Complete
	spec.Complete = func(s *Spec) error {
		err := complete(s)
		j.swap()
		return err
	}
	return j.Jail.Start(ctx, spec)
}

// A granted tree of the shared repository replaced by a symbolic link
// after the launcher checked it (a jail of the main worktree can do
// that) grants nothing where the link leads: the jail refuses to start.
func TestJailWorktreeLinkSwappedIn(t *testing.T) {
	e := newWorktreeJail(t)
	elsewhere := filepath.Join(outsideScratch(t), "elsewhere")
	if err := os.MkdirAll(filepath.Join(elsewhere, "heads"), 0o755); err != nil {
		t.Fatal(err)
	}
	refs := filepath.Join(e.common, "refs")
	o := e.options(jailModes[0], e.probeArgv("write", filepath.Join(refs, "heads", "evil"))...)
	o.Jail = swapJail{Jail: osJail(), swap: func() {
		if err := os.Rename(refs, refs+".real"); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(elsewhere, refs); err != nil {
			t.Error(err)
		}
	}}
	var out strings.Builder
	o.Stdout, o.Stderr = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Run(ctx, o)
	if err == nil && res.Code == 0 && strings.Contains(out.String(), "ok") {
		t.Errorf("the jail wrote through the swapped link: %s", out.String())
	}
	if _, err := os.Lstat(filepath.Join(elsewhere, "heads", "evil")); err == nil {
		t.Errorf("%s written through the link", filepath.Join(elsewhere, "heads", "evil"))
	}
	t.Logf("start refused: err %v, exit %d: %s", err, res.Code, out.String())
}

// mainJail makes MAIN itself the jail's project (with a bus of its own).
func (e *worktreeJail) mainJail(t *testing.T) {
	t.Helper()
	f, err := folder.New(e.main)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, f.Policy(), "version: 1\n")
	e.project = f
}

// A jail rooted in the main worktree cannot write the linked worktrees'
// dirs either (their commondir and config.worktree choose the config the
// broker's and the human's git run with there), nor make a new one; git
// still commits there.
func TestJailMainWorktreeKeepsWorktreeDirs(t *testing.T) {
	e := newWorktreeJail(t)
	e.mainJail(t)
	var as []attempt
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(e.common, "worktrees", name)
		for _, pr := range worktreeProtected {
			as = append(as, forbid(filepath.Join(dir, pr.name))...)
		}
		as = append(as, forbidExisting(filepath.Join(dir, "HEAD"))...)
		as = append(as, forbidExisting(dir)...)
	}
	as = append(as, forbid(filepath.Join(e.common, "worktrees", "c"))...)
	as = append(as, forbidExisting(filepath.Join(e.common, "worktrees"))...)
	as = append(as, forbid(filepath.Join(e.common, "refs", "replace", strings.Repeat("0", 40)))...)
	cases := make([]probeCase, len(as))
	for i, a := range as {
		cases[i] = probeCase{a.probe + " " + strings.Join(a.args, " "), a.probe, a.args}
	}
	before := e.snapshot(t)
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			out, _ := runJailed(t, e.options(m, e.batchArgv(cases)...))
			got := batchResults(t, out, len(cases))
			for i := range as {
				if got[i] == "ok" {
					t.Errorf("%s: written from the main worktree's jail", cases[i].name)
				}
			}
			if now := e.snapshot(t); !maps.Equal(now, before) {
				t.Errorf("protected names changed:\nbefore %v\nafter  %v", before, now)
			}
		})
	}
	script := `set -e
cd "$1"
echo jailed > main-jail.txt
git add main-jail.txt
git commit -q -m 'from the main jail'
git worktree list
echo DONE`
	out, res := runJailed(t, e.options(jailModes[0], "/bin/sh", "-c", script, "sh", e.main))
	if res.Code != 0 || !strings.Contains(out, "DONE") {
		t.Fatalf("git in the main worktree's jail: exit %d:\n%s", res.Code, out)
	}
}

// A repository without linked worktrees gets a real, empty
// .git/worktrees rather than a placeholder (mode 0555) for the run, so
// that `git worktree add` outside works while a jail runs in it.
func TestJailMainWorktreeSeedsWorktreesDir(t *testing.T) {
	e := newJailEnv(t)
	wts := filepath.Join(e.project.Root, ".git", "worktrees")
	out, res := runJailed(t, e.options(jailModes[0], "/usr/bin/stat", "-c", "%a", wts))
	if res.Code != 0 || strings.TrimSpace(out) != "755" {
		t.Fatalf("%s in the jail: exit %d: %s", wts, res.Code, out)
	}
	if fi, err := os.Lstat(wts); err != nil || !fi.IsDir() {
		t.Errorf("%s after the run: %v", wts, err)
	}
}

// The worktrees of a repository's agents share MAIN's pin stash: the
// placeholders a run in worktree a leaves there are the very ones a run
// in worktree b then stands on (no new inode each), and neither jail can
// write in the stash.
func TestJailWorktreesShareMainsPinStash(t *testing.T) {
	e := newWorktreeJail(t)
	b := busFolder(t, filepath.Join(e.main, ".sandbox", "worktrees", "b"))
	stash := filepath.Join(e.main, ".sandbox", "pins")
	if got := e.project.PinStash(); got != stash {
		t.Fatalf("worktree a's stash is %s, want MAIN's %s", got, stash)
	}

	runJailed(t, e.options(jailModes[0], "/bin/true"))
	left := map[uint64]string{}
	entries, _ := os.ReadDir(stash)
	for _, en := range entries {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(stash, en.Name()), &st); err != nil {
			t.Fatal(err)
		}
		left[st.Ino] = en.Name()
	}
	if len(left) == 0 {
		t.Fatal("a run in worktree a left no placeholder in MAIN's stash")
	}
	if own, _ := os.ReadDir(filepath.Join(e.wt, ".sandbox", "pins")); len(own) != 0 {
		t.Errorf("worktree a has a stash of its own: %v", own)
	}

	names := []string{".github", ".envrc", ".vscode"}
	var cases []probeCase
	for _, n := range names {
		cases = append(cases, probeCase{"inode " + n, "inode", []string{filepath.Join(b.Root, n)}})
	}
	attempts := append(forbidMissing(filepath.Join(stash, "planted")),
		attempt{probe: "rename", args: []string{stash, stash + ".moved"}},
		attempt{probe: "remove", args: []string{filepath.Join(stash, entries[0].Name())}})
	for _, a := range attempts {
		cases = append(cases, probeCase{a.probe + " " + strings.Join(a.args, " "), a.probe, a.args})
	}
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			o := e.options(m, e.batchArgv(cases)...)
			o.Folder = b
			out, _ := runJailed(t, o)
			got := batchResults(t, out, len(cases))
			for i := range names {
				if m.name != "namespaces" {
					break // placeholders are the mount namespace's
				}
				var ino uint64
				if _, err := fmt.Sscanf(got[i], "ino %d", &ino); err != nil {
					t.Fatalf("%s: %q", cases[i].name, got[i])
				}
				if _, ok := left[ino]; !ok {
					t.Errorf("%s in worktree b is inode %d, not one of the stash's %v", names[i], ino, left)
				}
			}
			for i := len(names); i < len(cases); i++ {
				if got[i] == "ok" {
					t.Errorf("%s: ok from worktree b's jail", cases[i].name)
				}
			}
		})
	}
}
