package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// effectsPolicy names no file tool in its shell rules: what the tests
// below allow, the effects allow.
const effectsPolicy = `version: 1
shell:
  escalate:
    - {pattern: "touch secret.txt", reason: "an escalate rule"}
  deny:
    - {pattern: "mkdir forbidden", reason: "a deny rule"}
write:
  allow: ["**"]
  escalate:
    - ".github/workflows/"
    - ".claude/"
read:
  allow: ["/**"]
  escalate: ["~/.ssh/"]
`

// effectsFixture is a project with files, a link to the home directory,
// a directory holding a link to ~/.bashrc, CI workflows and a staged
// tree that would become workflows if moved into .github.
func effectsFixture(t *testing.T) (testEnv, *Engine) {
	t.Helper()
	env := newTestEnv(t)
	for _, f := range []string{"a.txt", "src/main.go", "payload/.bashrc", "scripts/run.sh",
		".github/workflows/ci.yml", "staged/workflows/evil.yml", "x.tgz", ".git/HEAD", "o/x.o", "f"} {
		mustWrite(t, filepath.Join(env.root, f), "x")
	}
	mustWrite(t, filepath.Join(env.home, ".bashrc"), "rc")
	mustWrite(t, filepath.Join(env.home, ".ssh/id_rsa"), "key")
	if err := os.MkdirAll(filepath.Join(env.root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"homelink": env.home, "d/.bashrc": filepath.Join(env.home, ".bashrc")} {
		if err := os.Symlink(target, filepath.Join(env.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return env, env.engine(t, []byte(effectsPolicy))
}

// TestEffectsAllowUnderstood: a file tool the analyzer understands, with
// no shell rule naming it, is allowed when its writes and reads are, on
// both engines, and its part says so.
func TestEffectsAllowUnderstood(t *testing.T) {
	env, e := effectsFixture(t)
	for _, script := range []string{
		"mkdir -p build", "touch notes.txt", "cp a.txt b.txt", "cp a.txt src/", "mv a.txt c.txt",
		"rm -rf build", "rm -f a.txt", "rm -rf src", "chmod +x scripts/run.sh", "chmod -R u+w src",
		"tar -czf out.tgz src", "tar -tzf x.tgz", "ln -s " + env.root + "/a.txt l", "ln a.txt hard",
		"ls", "cat a.txt", "head -n 5 a.txt", "/bin/mkdir -p x", "rm -- -weird", "rm o/*.o",
		"mkdir -p build && cp a.txt build/", "mv a.txt src/", "rmdir -p build/x",
	} {
		for _, eng := range []*Engine{e, e.ForJail()} {
			d := eng.Shell(script, "")
			if d.Decision != Allow {
				t.Errorf("jailed=%v %q: %s, want allow", eng.Jailed(), script, dump(d))
				continue
			}
			if p := d.Parts[0]; p.Rule != ruleEffects || !strings.HasPrefix(p.Reason, "its effects are allowed") {
				t.Errorf("jailed=%v %q: first part %+v, want decided by effects", eng.Jailed(), script, p)
			}
		}
	}
}

// TestEffectsNeverAllowEscapes: inputs that try to get a file tool past
// its effects (writes outside the project, links, option tricks, unknown
// words, other programs of the same name, moves that plant or remove
// guarded trees) escalate or deny, unjailed and jailed. Before
// Understood existed every one of these escalated by default; each one
// here is a way the effects decision could have been fooled.
func TestEffectsNeverAllowEscapes(t *testing.T) {
	env, e := effectsFixture(t)
	for _, script := range []string{
		// Writes outside the project, directly.
		"cp a.txt ~/.bashrc", "cp a.txt ../x", "cp a.txt /etc/passwd", "cp -- a.txt /etc/passwd",
		"mv a.txt ~/.bashrc", "mv ~/.bashrc a.txt", "touch ../x", "touch ~/x", "touch /etc/x",
		"chmod 777 ~/.bashrc", "chmod -R 777 ..", "chmod +x ../x", "mkdir -p ../../x", "rm -rf ~", "rm -- -rf ~",
		"rm -rf /", "rmdir ..",
		// Links.
		"ln -s ~/.bashrc x", "ln ~/.bashrc x", "ln -s ../outside x", "ln -s ~ h && cp a.txt h/.bashrc",
		"ln -s /etc e && touch e/x", "cd src && ln -s ../../x ../l",
		"cp a.txt homelink/.bashrc", "touch homelink/x", "chmod +x homelink", "mkdir homelink/d", "rm -rf homelink",
		"cp payload/.bashrc d", "cp payload/.bashrc d/", "cp -t d payload/.bashrc", "cp payload/* d",
		"cp -s a.txt b", "cp -l a.txt b", "cp -d a.txt b", "cp -P a.txt b", "cp -a src dst", "cp -r src ~/x",
		// tar.
		"tar -C / -xf x.tgz", "tar -xf x.tgz", "tar --to-command=sh -xf x.tgz", "tar -czf out.tgz -C ~ .ssh",
		"tar -czf ~/out.tgz src", "tar czf out.tgz ~/.ssh", "tar -czf out.tgz ~/.ssh", "tar -czhf out.tgz src",
		"tar -c -f out.tgz --remove-files src", "tar -czf out.tgz -T f", "tar -czf host:out.tgz src",
		// Options: target directories, abbreviations, permutation, unknown ones.
		"cp --target-directory=/etc a.txt", "cp -t /etc a.txt", "cp --target-dir=/etc a.txt",
		"cp --target=/etc a.txt", "mv --target-directory=/etc a.txt", "cp a.txt --target-directory=/etc",
		"mv -t/etc a.txt", "cp -S x a.txt b", "cp --backup=t a.txt b", "touch -r ~/.ssh/id_rsa x",
		"touch --reference=~/.ssh/id_rsa x", "ln -t /etc a.txt",
		// Words of unknown value, globs where an option may stand, xargs.
		`cp a.txt "$HOME/.bashrc"`, "cp a.txt $D", `rm -rf "$X"`, "rm -rf $X/", "cp $(echo a.txt) b",
		"cp * src", "mv * src", "chmod $M a.txt", `touch "$(cat f)"`, "echo a.txt | xargs rm", "ls | xargs touch",
		// Other programs of the same name.
		"./mkdir x", "MKDIR x", "/tmp/mkdir x", "src/cp a.txt b",
		// Trees: the sandbox's state, .git, guarded configuration.
		"rm -rf .", "rm -rf ./", "rm -r src/..", "chmod -R 777 .", "rm -rf .git", "rm --rec .", "rm -rf .github",
		"mv .github gh", "mv staged .github", "mv staged/workflows .github/", "mv staged/workflows/evil.yml .github/workflows/",
		"touch .sandbox/x", "rm -rf .sandbox", "mv a.txt .sandbox/", "cp a.txt .claude/settings.json", "mkdir -p .claude",
		// Rules still win.
		"touch secret.txt", "mkdir forbidden",
		// Secrets read by a reader.
		"cat ~/.ssh/id_rsa", "tar -czf out.tgz homelink",
	} {
		for _, eng := range []*Engine{e, e.ForJail()} {
			if d := eng.Shell(script, ""); d.Decision == Allow && !(eng.Jailed() && onlyTempDirsOutside(d, env.root)) {
				t.Errorf("jailed=%v %q allowed: %s", eng.Jailed(), script, dump(d))
			}
		}
	}
}

// onlyTempDirsOutside reports a decision whose writes outside root all go
// to the temp dirs the jail lets its commands write (the test's project
// itself lives in one): the jailed engine allows those, nothing else
// outside the project.
func onlyTempDirsOutside(d Decision, root string) bool {
	outside := 0
	for _, p := range d.Parts {
		if p.Trigger != Write || p.Subject == root || strings.HasPrefix(p.Subject, root+"/") {
			continue
		}
		if p.Rule != ruleJailTmp || !inTempDir(p.Subject) {
			return false
		}
		outside++
	}
	return outside > 0
}

// TestEffectsTreeDenies: a recursive write of a tree holding the
// sandbox's state is denied, not only escalated, however the tree is
// named.
func TestEffectsTreeDenies(t *testing.T) {
	_, e := effectsFixture(t)
	for _, script := range []string{"rm -rf .", "rm -rf ./", "rm -r src/..", "chmod -R 777 .", "rm -rf .sandbox", "touch .sandbox/x"} {
		for _, eng := range []*Engine{e, e.ForJail()} {
			if d := eng.Shell(script, ""); d.Decision != Deny {
				t.Errorf("jailed=%v %q: %s, want deny", eng.Jailed(), script, dump(d))
			}
		}
	}
}
