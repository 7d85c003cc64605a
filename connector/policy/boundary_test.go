package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// boundaryEnv is a project with a secret file in one folder, a clean
// folder, a nested repository, and a home holding keys.
func boundaryEnv(t *testing.T) (testEnv, *Engine) {
	t.Helper()
	env := newTestEnv(t)
	for path, data := range map[string]string{
		".env":               "TOKEN=1",
		"app/.env.local":     "TOKEN=2",
		"src/main.go":        "package main",
		"package.json":       `{"name":"x"}`,
		"nested/.git/config": "[core]\n\tfsmonitor = /tmp/x\n",
		"nested/deep/f.txt":  "x",
		"pointer/.git":       "gitdir: /tmp/elsewhere\n",
		// A bare repository under another name: git takes a directory
		// with HEAD, objects and refs for one and reads its config.
		"bare/HEAD":                        "ref: refs/heads/master\n",
		"bare/config":                      "[diff]\n\texternal = /tmp/x\n",
		"bare/objects/info/alternates":     "../../.git/objects\n",
		"bare/refs/heads/master":           "0000000000000000000000000000000000000000\n",
		"headless/objects/info/alternates": "x\n",
		"headless/refs/heads/master":       "x\n",
		"../home/.ssh/id_rsa":              "KEY",
		"../home/.aws/config":              "[default]",
		"../home/notes/todo.md":            "x",
	} {
		mustWrite(t, filepath.Join(env.root, path), data)
	}
	return env, env.engine(t, DefaultYAML())
}

// Classes 12-14 of the boundary issue, through the policy with the
// analyzer: none of these may be allowed; want says the tier when it
// matters ("" = escalate or deny).
func TestBoundaryNeverAllowed(t *testing.T) {
	env, e := boundaryEnv(t)
	home := env.home
	cases := []struct{ script, want string }{
		// 12: the Go toolchain.
		{"GOCACHEPROG=/tmp/x go build ./...", ""},
		{"env GOCACHEPROG=/tmp/x go build ./...", ""},
		{"export GOCACHEPROG=/tmp/x; go test ./...", ""},
		{"GOTOOLCHAIN=go1.99.0 go build", ""},
		{"CC=/tmp/x go build ./...", ""},
		{"CGO_LDFLAGS=-fuse-ld=/tmp/x go build", ""},
		// gcc, which cgo runs, takes its cc1, as and ld from these.
		{"COMPILER_PATH=./ev go build ./...", ""},
		{"GCC_EXEC_PREFIX=./ev/ go build", ""},
		{"export COMPILER_PATH=ev; go test ./...", ""},
		{"env GCC_EXEC_PREFIX=ev/ go vet ./...", ""},
		{"DEPENDENCIES_OUTPUT=/tmp/d go build", ""},
		{"CCC_OVERRIDE_OPTIONS=+-fplugin=./p.so go build", ""},
		{"MAGIC=" + home + "/.ssh/id_rsa file x", ""},
		{"go build -ldflags=-extld=/tmp/evil ./...", ""},
		{"go build -ldflags '-linkmode=external -extldflags=-B/tmp' .", ""},
		{"go build -gcflags=all=-cpuprofile=/tmp/p .", ""},
		{"go build -C /tmp -o x .", ""},
		{"go build -C src -o ../../x .", ""},
		{"go build -o /tmp/x .", ""},
		{"go test -cpuprofile /tmp/p ./...", ""},
		{"go test -outputdir=/tmp -memprofile m ./...", ""},
		{"go test -coverprofile=/tmp/c ./...", ""},
		{"go test ./... -args -test.trace=/tmp/t", ""},
		{"go build -modfile=/tmp/go.mod ./...", ""},
		{"go test -exec /tmp/x ./...", ""},
		{"go vet -vettool=/tmp/x ./...", ""},
		{"go build -toolexec=/tmp/x .", ""},
		{"go build -overlay=o.json .", ""},
		{"go build -pgo=" + home + "/.ssh/id_rsa .", ""},
		{"go env -w GOFLAGS=-toolexec=/tmp/x", ""},
		{"go generate ./...", ""},
		{"go run .", ""},
		{"go tool compile x.go", ""},
		{"go install ./...", ""},
		{"gofmt -w -r 'a -> b' /tmp/x.go", ""},
		{"gofmt -w " + home + "/notes", ""},
		{"timeout 60 go build -ldflags=-extld=/tmp/x .", ""},
		{"bash -c 'go test -exec=/tmp/x ./...'", ""},
		{"echo ./... | xargs go build -toolexec=/tmp/x", ""},
		{"cargo build --target-dir /tmp/t", ""},
		{"make test -C /tmp/other", ""},
		// 13: git configuration and other repositories.
		{"echo x > .git/commondir", "escalate"},
		{"echo '[core] fsmonitor=x' > .git/config", "escalate"},
		{"printf x > .git/hooks/pre-push", "escalate"},
		{"echo x > .git/info/attributes", "escalate"},
		{"echo /tmp/o > .git/objects/info/alternates", "escalate"},
		{"echo x > sub/.git/config", "escalate"},
		{"echo 'gitdir: /tmp/x' > sub/.git", "escalate"},
		{"echo x > a/b/.GIT/config", ""},
		{"sed -i s/a/b/ .git/config", ""},
		{"mv .git .git.orig", ""},
		{"cp cfg nested/.git/config", ""},
		{"tee .git/config < x", ""},
		{"cd .git && echo x > config", ""},
		{"git -C /tmp status", ""},
		{"git -C nested status", "escalate"},
		{"git -Cnested status", "escalate"},
		{"cd nested && git status", "escalate"},
		{"cd nested/deep && git log", "escalate"},
		{"cd pointer && git status", "escalate"},
		{"cd bare && git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD", "escalate"},
		{"cd bare/refs/heads && git log", "escalate"},
		{"cd headless && echo 'ref: refs/heads/m' > HEAD && git diff A B", "escalate"},
		{"env -C nested git status", "escalate"},
		{"env --chdir=nested/deep git log", "escalate"},
		{"env -C /tmp git status", ""},
		{"env -C /tmp make", ""},
		{"env -C /tmp go test ./...", ""},
		{"GIT_DIR=/tmp/x git status", ""},
		{"GIT_CONFIG_GLOBAL=/tmp/c git status", ""},
		{"env GIT_EXTERNAL_DIFF=/tmp/x git diff", ""},
		{"export GIT_PAGER=/tmp/x; git log", ""},
		{"PAGER=/tmp/x git log", ""},
		{"EDITOR=/tmp/x git status", ""},
		{"git --git-dir=/tmp/x status", ""},
		// 14: secret reads.
		{"jq -n --args -f " + home + "/.ssh/id_rsa", ""},
		{"jq --args . x --rawfile k " + home + "/.ssh/id_rsa", ""},
		{"jq -nf " + home + "/.ssh/id_rsa", ""},
		{"jq -f " + home + "/.ssh/id_rsa .", ""},
		{"jq -n --slurpfile k " + home + "/.ssh/id_rsa .", ""},
		{"jq -n 'import \"config\" as $c {search: \"" + home + "/.docker\"}; $c'", ""},
		{"jq . .env", ""},
		{"git diff --no-index " + home + "/.ssh/id_rsa /dev/null", ""},
		{"git diff --no-index " + home + " /tmp", ""},
		{"git diff " + home + "/.ssh/id_rsa README", ""},
		{"git blame --contents " + home + "/.ssh/id_rsa main.go", ""},
		{"git blame --contents=" + home + "/.ssh/id_rsa main.go", ""},
		{"git config --list -f " + home + "/.aws/config", ""},
		{"git config --get --file=" + home + "/.aws/config default.region", ""},
		{"git grep --no-index TOKEN", ""},
		{"git grep --untracked TOKEN", ""},
		{"grep -r token " + home, ""},
		{"grep -r token ~", ""},
		{"grep -rn . .", ""},
		{"grep -r . app", ""},
		{"grep -R TOKEN", ""},
		{"grep --recursive TOKEN .", ""},
		{"grep -d recurse TOKEN .", ""},
		{"rg --hidden TOKEN", ""},
		{"rg -uu TOKEN " + home, ""},
		{"rg -. TOKEN", ""},
		{"rg -g '*.env*' TOKEN", ""},
		{"rg $FLAGS TOKEN", ""},
		{"RIPGREP_CONFIG_PATH=x.rc rg TOKEN", ""},
		{"diff -r " + home + " /tmp", ""},
		{"diff -r . /tmp", ""},
		{"cat .env", ""},
		{"git show HEAD:.env", ""},
		{"git cat-file -p HEAD:app/.env.local", ""},
		{"go doc -http", ""},
		{"cat app/.env.local", ""},
		{"cd app && grep -r T .", ""},
		{"bash -c 'grep -r T .'", ""},
		{"timeout 5 grep -r T app", ""},
	}
	for _, tc := range cases {
		t.Run(tc.script, func(t *testing.T) {
			d := e.Shell(tc.script, "")
			if d.Decision == Allow || tc.want == "escalate" && d.Decision != Escalate {
				t.Errorf("%v, want %s:\n%s", d.Decision, tc.want, dump(d))
			}
		})
	}
}

// The everyday commands of the same tools stay allowed.
func TestBoundaryEverydayAllowed(t *testing.T) {
	_, e := boundaryEnv(t)
	for _, script := range []string{
		"go build ./...", "go test ./...", "go vet ./...", "go test -race -count=1 -run TestX ./...",
		"go build -ldflags='-s -w -X main.version=1' ./...", "go test -coverprofile=cover.out ./...",
		"CGO_ENABLED=0 go build ./...", "GOOS=windows go vet ./...", "gofmt -l .", "gofmt -s -w src/main.go",
		"git status", "git diff", "git diff HEAD~1 -- src", "git log --oneline -5", "git -c core.quotepath=false status",
		"cd src && git status", "jq .name package.json", "jq -r --arg n x '.[$n]' package.json",
		"jq -n --args '$ARGS' a b", "grep -rn foo src/", "grep -rn foo src", "rg foo src",
		"diff -r src src", "git diff --no-index src/main.go src/main.go", "git grep foo",
		// rg leaves hidden names (.env, ~/.ssh) out unless told otherwise.
		"rg TOKEN", "rg -n TOKEN .", "rg -u TOKEN",
		"git show HEAD --stat", "git show HEAD:src/main.go", "go doc fmt.Println",
		"env -C src go build ./...", "env -C src git status",
	} {
		t.Run(script, func(t *testing.T) {
			if d := e.Shell(script, ""); d.Decision != Allow {
				t.Errorf("%v:\n%s", d.Decision, dump(d))
			}
		})
	}
}

// rg reads visible protected files: /etc/shadow under /etc.
func TestTreeReadVisible(t *testing.T) {
	_, e := boundaryEnv(t)
	if _, err := os.Lstat("/etc/shadow"); err != nil {
		t.Skip("no /etc/shadow on this system")
	}
	for _, script := range []string{"rg root /etc", "grep -r root /etc", "diff -r /etc /tmp"} {
		if d := e.Shell(script, ""); d.Decision == Allow {
			t.Errorf("%s: %v:\n%s", script, d.Decision, dump(d))
		}
	}
}

// Writes of .git, directory or file, anywhere, escalate whatever the
// policy, a remembered decision or the ci: section says.
func TestGitWritesAlwaysEscalate(t *testing.T) {
	env := newTestEnv(t)
	src := []byte("version: 1\nwrite:\n  allow: [\"**\", \".git/**\", \"/**\"]\nci:\n  write: {approve: [\"**\"]}\n")
	e := env.engine(t, src, Remembered{Trigger: Write, Tier: Allow, Pattern: "**"})
	ci, err := e.CI()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		".git", ".git/config", ".git/commondir", ".git/hooks/pre-push", ".git/info/exclude",
		".git/objects/info/alternates", ".git/modules/m/config", "sub/.git", "sub/.git/config",
		"a/b/c/.git/HEAD", ".GIT/config", "/tmp/elsewhere/.git/config",
	} {
		for name, eng := range map[string]*Engine{"policy": e, "ci": ci} {
			t.Run(name+" "+p, func(t *testing.T) {
				d := eng.Write(p, "")
				if d.Decision != Escalate || !strings.Contains(dump(d), ruleGit) {
					t.Errorf("%v:\n%s", d.Decision, dump(d))
				}
			})
		}
	}
	for _, p := range []string{".gitignore", ".gitmodules", ".gitattributes", "x.git", ".github/x.yml.git"} {
		if d := e.Write(p, ""); d.Decision != Allow {
			t.Errorf("write %s: %v:\n%s", p, d.Decision, dump(d))
		}
	}
}

// A link inside a tree read whole that leads to a secret counts as a read
// of it; a tree too large to check escalates.
func TestTreeReadLinks(t *testing.T) {
	env, e := boundaryEnv(t)
	if err := os.Symlink(filepath.Join(env.home, ".ssh"), filepath.Join(env.root, "src", "keys")); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"grep -R x src", "grep --dereference-recursive x src", "rg -L x src", "diff -r src /tmp", "cp -rL src dst"} {
		d := e.Shell(script, "")
		if d.Decision == Allow || !strings.Contains(dump(d), "keys") {
			t.Errorf("%s: %v:\n%s", script, d.Decision, dump(d))
		}
	}
	// grep -r and rg do not follow links they meet below the directory.
	for _, script := range []string{"grep -r x src", "rg x src"} {
		if d := e.Shell(script, ""); d.Decision != Allow {
			t.Errorf("%s: %v:\n%s", script, d.Decision, dump(d))
		}
	}
	big := filepath.Join(env.root, "big")
	mustWrite(t, filepath.Join(big, "x"), "x")
	for i := 0; i < 3; i++ {
		if err := os.Symlink("x", filepath.Join(big, "l"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	if d := e.Shell("grep -r x big", ""); d.Decision != Allow {
		t.Errorf("links inside the tree: %v:\n%s", d.Decision, dump(d))
	}
}
