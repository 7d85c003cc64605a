//go:build linux

package launcher

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shLines runs script with /bin/sh in the jail and returns its output
// lines of the form "NAME RESULT" as a map.
func (e *testJail) shLines(t *testing.T, m jailMode, script string, mod ...func(*Options)) (map[string]string, string) {
	t.Helper()
	o := e.options(m, "/bin/sh", "-c", script)
	for _, f := range mod {
		f(&o)
	}
	out, _ := runJailed(t, o)
	return parseAt(out), out
}

// try is a shell function for shLines scripts: `try NAME CMD...` prints
// "@NAME ok" when CMD succeeds and "@NAME denied" otherwise.
const try = `try() { n=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "@$n ok"; else echo "@$n denied"; fi; }
`

// TestJailInitUnreachable: nothing the supervisor inherited reaches the
// command, neither as a descriptor of its own nor through the init's
// /proc entries (the init is the command's parent in every mode: pid 1
// with a pid namespace).
func TestJailInitUnreachable(t *testing.T) {
	e := newJailEnv(t)
	fd, err := syscall.Open(e.secret, syscall.O_RDONLY, 0) // no O_CLOEXEC: as a shell would leave it
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	script := try + fmt.Sprintf(`p=$PPID
try own-fd sh -c 'cat <&%[1]d'
try init-fd-link sh -c "readlink /proc/$p/fd/0 && ls -l /proc/$p/fd/ | grep -- -\\>"
try init-fd sh -c "cat /proc/$p/fd/%[1]d"
try init-environ sh -c "head -c1 /proc/$p/environ | grep -q ."
try init-mem sh -c "exec 9</proc/$p/mem"
try init-root sh -c "ls /proc/$p/root/ | grep ."
try init-cwd sh -c "ls /proc/$p/cwd/ | grep ."
try init-maps sh -c "head -c1 /proc/$p/maps | grep -q ."
try self-fd sh -c "ls /proc/self/fd/ | grep ."
`, fd)
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			got, out := e.shLines(t, m, script)
			if got["self-fd"] != "ok" {
				t.Fatalf("the control case failed:\n%s", out)
			}
			for _, k := range []string{"own-fd", "init-fd-link", "init-fd", "init-environ", "init-mem", "init-root", "init-cwd", "init-maps"} {
				if got[k] != "denied" {
					t.Errorf("%s: %q, want denied\n%s", k, got[k], out)
				}
			}
			if strings.Contains(out, "secret") {
				t.Errorf("the secret leaked:\n%s", out)
			}
		})
	}
}

// TestJailPrivateScratch: the jail sees its own /tmp, /var/tmp and
// /dev/shm, so the pathname sockets of the user's other programs there
// (tmux, X11, screen, editors) and under /run are out of reach, while
// $TMPDIR, mktemp and a project under /tmp keep working.
func TestJailPrivateScratch(t *testing.T) {
	e := newJailEnv(t) // its project lies under /tmp: carried into the jail's own
	m := jailModes[0]
	shared, err := os.MkdirTemp("", "sandbox-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	tmuxSock := unixServer(t, shared) // as tmux -S /tmp/tmux-UID/default
	runSock := unixServer(t, outsideScratch(t))
	mustWrite(t, "/dev/shm/sandbox-test-"+filepath.Base(shared), "host")
	t.Cleanup(func() { os.Remove("/dev/shm/sandbox-test-" + filepath.Base(shared)) })
	varTmp, err := os.MkdirTemp("/var/tmp", "sandbox-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(varTmp) })
	tmpdir := filepath.Join(os.TempDir(), "sandbox-user-tmp-"+filepath.Base(shared))
	script := try + fmt.Sprintf(`
try tmux-socket sh -c '%[1]s probe unix %[2]s | grep -q ^ok'
try run-socket sh -c '%[1]s probe unix %[3]s | grep -q ^ok' 
try see-shared test -e %[4]s
try see-var-tmp test -e %[5]s
try see-shm test -e /dev/shm/sandbox-test-%[6]s
try write-tmp sh -c 'echo x > /tmp/jail-file && test -k /tmp'
try write-var-tmp sh -c 'echo x > /var/tmp/jail-file'
try write-shm sh -c 'echo x > /dev/shm/jail-file'
try mktemp sh -c 'f=$(mktemp) && echo x > "$f" && case "$f" in "$TMPDIR"/*) ;; *) exit 1;; esac'
try project sh -c 'echo x > %[7]s/src/jail.txt'
`, e.probe, tmuxSock, runSock, shared, varTmp, filepath.Base(shared), e.project.Root)
	got, out := e.shLines(t, m, script, func(o *Options) {
		o.Env = append(o.Env, "TMPDIR="+tmpdir)
	})
	want := map[string]string{
		"tmux-socket": "denied", "run-socket": "denied",
		"see-shared": "denied", "see-var-tmp": "denied", "see-shm": "denied",
		"write-tmp": "ok", "write-var-tmp": "ok", "write-shm": "ok", "mktemp": "ok", "project": "ok",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %s\n%s", k, got[k], v, out)
		}
	}
	for _, p := range []string{"/tmp/jail-file", "/var/tmp/jail-file", "/dev/shm/jail-file"} {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("%s written in the jail appeared on the host", p)
		}
	}
	if _, err := os.Stat(filepath.Join(e.project.Root, "src/jail.txt")); err != nil {
		t.Errorf("the project's file written in the jail: %v", err)
	}
}

// TestJailPinnedNames: the protected names cannot be created, replaced,
// renamed or removed, whether they exist, are missing or are symbolic
// links, nor can the directories on the way to them; git add and commit,
// mktemp and ordinary writes in the project keep working.
func TestJailPinnedNames(t *testing.T) {
	git := testenvCommand(t, "git")
	e := newJailEnv(t)
	root := e.project.Root
	gitIn(t, git, root, "init", "-q")
	os.RemoveAll(filepath.Join(root, ".git/hooks")) // missing: pinned all the same
	os.RemoveAll(filepath.Join(root, ".claude"))
	mustWrite(t, filepath.Join(root, ".claude/settings.json"), "original")
	mustWrite(t, filepath.Join(root, "codex-real/config.toml"), "original")
	if err := os.Symlink("codex-real", filepath.Join(root, ".codex")); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, root)
	script := try + `cd "$1"
try mv-git mv .git .git.orig
try mv-claude mv .claude claude.orig
try rm-claude rm -rf .claude
try rm-mcp rm -f .mcp.json
try replace-mcp sh -c 'echo {} > m && mv m .mcp.json'
try codex-link sh -c 'rm .codex && mkdir .codex && echo x > .codex/config.toml'
try codex-target sh -c 'echo x > codex-real/config.toml'
try workflows sh -c 'mkdir -p .github/workflows && echo x > .github/workflows/x.yml'
try envrc sh -c 'echo x > .envrc'
try vscode-tasks sh -c 'mkdir -p .vscode && echo x > .vscode/tasks.json'
try gemini sh -c 'mkdir .gemini'
try hooks sh -c 'mkdir -p .git/hooks; echo x > .git/hooks/pre-push'
try commondir sh -c 'echo /x > .git/commondir'
try alternates sh -c 'echo /x > .git/objects/info/alternates'
try info sh -c 'echo x > .git/info/attributes'
try remotes sh -c 'mkdir -p .git/remotes; echo URL: /x > .git/remotes/origin'
try branches sh -c 'mkdir -p .git/branches; echo /x > .git/branches/origin'
try git-config sh -c 'echo x >> .git/config'
try mv-git-objects mv .git/objects .git/o2
try umount-git umount -l .git
try umount-config umount -l .git/config
try umount-tmp umount -l /tmp
try write sh -c 'echo y > src/new.go && mkdir -p src/a/b && mv src/new.go src/a/b/'
try top-level-new sh -c 'echo y > top.txt && echo z >> top.txt && mkdir topdir'
try top-level-rm rm top.txt
try git-commit sh -c 'git add src && git -c user.name=a -c user.email=a@b commit -qm jailed'
try git-log sh -c 'git log --oneline | grep -q jailed'
`
	for _, m := range jailModes[:1] {
		t.Run(m.name, func(t *testing.T) {
			o := e.options(m, "/bin/sh", "-c", script, "sh", root)
			out, _ := runJailed(t, o)
			got := parseAt(out)
			for _, k := range []string{"mv-git", "mv-claude", "rm-claude", "rm-mcp", "replace-mcp", "codex-link",
				"codex-target", "workflows", "envrc", "vscode-tasks", "gemini", "hooks", "commondir",
				"alternates", "info", "remotes", "branches", "git-config", "mv-git-objects", "umount-git", "umount-config", "umount-tmp",
				"top-level-rm"} { // .codex is a link: nothing in its directory may be removed
				if got[k] != "denied" {
					t.Errorf("%s: %q, want denied\n%s", k, got[k], out)
				}
			}
			for _, k := range []string{"write", "top-level-new", "git-commit", "git-log"} {
				if got[k] != "ok" {
					t.Errorf("%s: %q, want ok\n%s", k, got[k], out)
				}
			}
			// nothing protected changed on the host, and the placeholders
			// of the run are gone (to the stash, .sandbox/pins)
			after := listTree(t, root)
			for p, v := range before {
				if !strings.HasPrefix(p, ".git/") && !strings.HasPrefix(p, "src/") && after[p] != v {
					t.Errorf("%s: %q, was %q", p, after[p], v)
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok && !strings.HasPrefix(p, ".git/objects/") && !strings.HasPrefix(p, ".git/logs") &&
					!strings.HasPrefix(p, ".git/refs/") && !strings.HasPrefix(p, "src/") && p != "top.txt" && p != "topdir" && p != "m" &&
					p != ".git/index" && p != ".git/COMMIT_EDITMSG" && p != ".git/worktrees" && p != ".git/refs/replace" && p != ".sandbox/pins" && !strings.HasPrefix(p, ".sandbox/pins/") {
					t.Errorf("%s appeared on the host", p)
				}
			}
		})
	}
}

// TestJailPinnedOverlap: two runs of one project at once (parallel tool
// calls). The run that made the placeholders ends first; it must not take
// the other's pins along (a placeholder removed on the host frees the name
// in the other jail). The last one out removes them.
func TestJailPinnedOverlap(t *testing.T) {
	e := newJailEnv(t)
	root := e.project.Root
	os.RemoveAll(filepath.Join(root, ".git/hooks"))
	start := func(script string) <-chan string {
		done := make(chan string, 1)
		go func() {
			o := e.options(jailModes[0], "/bin/sh", "-c", try+`cd "$1"`+"\n"+script, "sh", root)
			var buf strings.Builder
			o.Stdout, o.Stderr = &buf, &buf
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			_, err := Run(ctx, o)
			done <- fmt.Sprintf("%s\nerr %v", buf.String(), err)
		}()
		return done
	}
	waitFor := func(p string) {
		t.Helper()
		for i := 0; i < 1200; i++ {
			if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s never appeared", p)
	}
	first := start(`while [ ! -e src/a-go ]; do sleep 0.05; done`)
	waitFor(".envrc") // the first run's placeholders are in place
	second := start(`touch src/b-started; while [ ! -e src/b-go ]; do sleep 0.05; done
try envrc sh -c 'echo x > .envrc'
try hooks sh -c 'echo x > .git/hooks/pre-push'
try workflows sh -c 'mkdir -p .github/workflows && echo x > .github/workflows/x.yml'`)
	waitFor("src/b-started")
	mustWrite(t, filepath.Join(root, "src/a-go"), "")
	<-first
	mustWrite(t, filepath.Join(root, "src/b-go"), "")
	out := <-second
	got := parseAt(out)
	for _, k := range []string{"envrc", "hooks", "workflows"} {
		if got[k] != "denied" {
			t.Errorf("%s: %q, want denied\n%s", k, got[k], out)
		}
	}
	for _, p := range []string{".envrc", ".git/hooks", ".github"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s left behind after both runs", p)
		}
	}
}

// TestJailPinnedNoGit: in a project without .git, no repository can be
// made at the root.
func TestJailPinnedNoGit(t *testing.T) {
	git := testenvCommand(t, "git")
	e := newJailEnv(t)
	root := e.project.Root
	os.RemoveAll(filepath.Join(root, ".git"))
	script := try + `cd "$1"
try git-init git init -q
try mkdir-git sh -c 'rm -rf .git; mkdir .git && echo x > .git/config'
try git-file sh -c 'rm -rf .git; echo "gitdir: /x" > .git'
try git-status sh -c 'test "$(git rev-parse --show-toplevel 2>/dev/null)" = "$1"' sh "$1"
try top-level-write sh -c 'echo x > top.txt && mkdir -p d/e && mv top.txt d/e/ && mktemp'
`
	out, _ := runJailed(t, e.options(jailModes[0], "/bin/sh", "-c", script, "sh", root))
	got := parseAt(out)
	for _, k := range []string{"git-init", "mkdir-git", "git-file", "git-status"} {
		if got[k] != "denied" {
			t.Errorf("%s: %q, want denied\n%s", k, got[k], out)
		}
	}
	if got["top-level-write"] != "ok" {
		t.Errorf("top-level-write: %q, want ok\n%s", got["top-level-write"], out)
	}
	if _, err := os.Lstat(filepath.Join(root, ".git")); err == nil {
		t.Errorf(".git exists on the host after the run")
	}
	_ = git
}

// TestJailWritableLinks: a symbolic link one run plants where a later
// run's writable tree lies does not widen that run: it is refused.
func TestJailWritableLinks(t *testing.T) {
	e := newJailEnv(t)
	root := e.project.Root
	outside := outsideScratch(t)
	scratch := filepath.Join(root, "work", "tmp") // a $TMPDIR the user keeps in the project
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			o := e.options(m, "/bin/sh", "-c", `rm -rf "$1" && ln -s "$2" "$1"`, "sh", scratch, outside)
			o.Writable = []string{scratch}
			runJailed(t, o)
			if fi, err := os.Lstat(scratch); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the first run did not plant the link: %v", err)
			}
			o = e.options(m, "/bin/sh", "-c", `echo x > "$1/planted"`, "sh", scratch)
			o.Writable = []string{scratch}
			var buf strings.Builder
			o.Stdout, o.Stderr = &buf, &buf
			_, err := Run(context.Background(), o)
			if _, serr := os.Stat(filepath.Join(outside, "planted")); serr == nil {
				t.Errorf("the second run wrote through the planted link (err %v)\n%s", err, buf.String())
			}
			if err == nil {
				t.Errorf("the second run started")
			}
			os.Remove(scratch)
			os.MkdirAll(scratch, 0o755)
		})
	}
}

func parseAt(out string) map[string]string {
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), " "); ok && strings.HasPrefix(k, "@") {
			got[k[1:]] = v
		}
	}
	return got
}

// listTree maps each path below root (but .git/objects) to its content
// ("dir" for a directory, "-> target" for a link).
func listTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		case fi.IsDir():
			out[rel] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func gitIn(t *testing.T, git, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(git, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func testenvCommand(t *testing.T, name string) string {
	t.Helper()
	return testenv.RequireCommand(t, name)
}

// TestJailPinnedNamesFromStash: the second run of a project takes its
// placeholders from the stash the first one left them in, and they pin
// the missing names as freshly made ones do; between and after the runs
// the project holds none of them.
func TestJailPinnedNamesFromStash(t *testing.T) {
	e := newJailEnv(t)
	root := e.project.Root
	script := try + `cd "$1"
try workflows sh -c 'mkdir -p .github/workflows && echo x > .github/workflows/x.yml'
try envrc sh -c 'echo x > .envrc'
try rm-vscode rmdir .vscode
try mv-github mv .github gh
try write sh -c 'echo y > new.txt'
`
	for run := range 2 {
		o := e.options(jailModes[0], "/bin/sh", "-c", script, "sh", root)
		out, _ := runJailed(t, o)
		got := parseAt(out)
		for _, k := range []string{"workflows", "envrc", "rm-vscode", "mv-github"} {
			if got[k] != "denied" {
				t.Errorf("run %d: %s: %q, want denied\n%s", run, k, got[k], out)
			}
		}
		if got["write"] != "ok" {
			t.Errorf("run %d: write: %q\n%s", run, got["write"], out)
		}
		for _, n := range []string{".github", ".envrc", ".vscode", "gh"} {
			if _, err := os.Lstat(filepath.Join(root, n)); err == nil {
				t.Errorf("run %d: %s left in the project", run, n)
			}
		}
		if entries, _ := os.ReadDir(filepath.Join(root, ".sandbox/pins")); len(entries) == 0 {
			t.Errorf("run %d: nothing in the stash", run)
		}
	}
}
