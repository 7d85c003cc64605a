package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy/corpus"
)

// The corpus acceptance: the default policy decides every line of the
// everyday corpus (testdata/corpus/everyday.txt) in a realistic project,
// once for a command that will run in the project jail and once for one
// that will not. With the jail at least 97% must be allowed, without it at
// least 85%. No line of the attack corpus (adversarial.txt) may be allowed
// unjailed; those allowed jailed are run in the real jail by
// cmd/sandbox's TestAdversarialCorpusContained, which checks that their
// harm did not happen.
const (
	minJailed   = 0.97
	minUnjailed = 0.85
)

// corpusProject is corpusFixture under the default policy.
func corpusProject(t *testing.T) (testEnv, *Engine) {
	t.Helper()
	env := corpusFixture(t)
	return env, env.engine(t, DefaultYAML())
}

// corpusFixture is a project with a bit of every kind: a Go module, a Node
// package, a Python project, a Rust crate, scripts and a git repository
// with one commit.
func corpusFixture(t *testing.T) testEnv {
	t.Helper()
	env := newTestEnv(t)
	files := map[string]string{
		"go.mod":                  "module example.com/app\n\ngo 1.22\n",
		"main.go":                 "package main\n\nfunc main() {}\n",
		"cmd/app/main.go":         "package main\n\nfunc main() {}\n",
		"internal/parser/p.go":    "package parser\n",
		"package.json":            `{"name":"app","version":"1.0.0","scripts":{"test":"node --test","build":"tsc","dev":"node dist/index.js"}}` + "\n",
		"tsconfig.json":           `{"compilerOptions":{"strict":true}}` + "\n",
		"src/index.js":            "console.log('hi')\n",
		"src/app.js":              "module.exports = {}\n",
		"src/config.js":           "module.exports = {port: 8080}\n",
		"src/app.py":              "print('hi')\n",
		"src/main.rs":             "fn main() {}\n",
		"Cargo.toml":              "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
		"pyproject.toml":          "[project]\nname = \"app\"\nversion = \"0.1.0\"\n",
		"requirements.txt":        "requests\n",
		"tests/test_app.py":       "def test_app():\n    pass\n",
		"scripts/run.sh":          "#!/bin/sh\necho run\n",
		"script.js":               "console.log(1)\n",
		"x.py":                    "print(1)\n",
		"Makefile":                "all:\n\tgo build ./...\n",
		"README.md":               "# app\n",
		".gitignore":              "node_modules/\n",
		"node_modules/x/index.js": "\n",
	}
	for name, data := range files {
		mustWrite(t, filepath.Join(env.root, name), data)
	}
	if err := os.Chmod(filepath.Join(env.root, "scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if git, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
			{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
			cmd := exec.Command(git, args...)
			cmd.Dir = env.root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	} else {
		mustWrite(t, filepath.Join(env.root, ".git/HEAD"), "ref: refs/heads/main\n")
	}
	return env
}

// readCorpus reads testdata/corpus/NAME with the project root put in.
func readCorpus(t *testing.T, name, root string) []corpus.Line {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := corpus.Parse(string(data))
	for i := range lines {
		lines[i].Cmd = strings.ReplaceAll(lines[i].Cmd, corpus.Root, root)
	}
	return lines
}

// corpusVerdicts decides every line with e and returns those that are not
// allowed, each with its decision's reasons.
func corpusVerdicts(e *Engine, lines []corpus.Line) (notAllowed []string) {
	for _, l := range lines {
		if d := e.Shell(l.Cmd, ""); d.Decision != Allow {
			notAllowed = append(notAllowed, fmt.Sprintf("line %d: %s: %s\n\t%s",
				l.N, d.Decision, oneLine(l.Cmd), strings.Join(d.Reasons, "\n\t")))
		}
	}
	return notAllowed
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ⏎…"
	}
	return s
}

func TestEverydayCorpus(t *testing.T) {
	env, e := corpusProject(t)
	lines := readCorpus(t, "everyday.txt", env.root)
	if len(lines) < 200 {
		t.Fatalf("the everyday corpus has %d commands; the acceptance asks for at least 200", len(lines))
	}
	for _, c := range []struct {
		name string
		e    *Engine
		min  float64
	}{{"jailed", e.ForJail(), minJailed}, {"unjailed", e, minUnjailed}} {
		rest := corpusVerdicts(c.e, lines)
		rate := float64(len(lines)-len(rest)) / float64(len(lines))
		t.Logf("%s: %d of %d allowed (%.1f%%, at least %.0f%% asked); not allowed:\n%s",
			c.name, len(lines)-len(rest), len(lines), 100*rate, 100*c.min, strings.Join(rest, "\n"))
		if rate < c.min {
			t.Errorf("%s: %.1f%% of the everyday corpus allowed, under %.0f%%", c.name, 100*rate, 100*c.min)
		}
	}
}

// TestAdversarialCorpus: no attack is allowed unjailed; the ones the jailed
// policy allows are listed (cmd/sandbox runs them in the jail).
func TestAdversarialCorpus(t *testing.T) {
	env, e := corpusProject(t)
	lines := readCorpus(t, "adversarial.txt", env.root)
	if len(lines) < 60 {
		t.Fatalf("the attack corpus has %d commands; at least 60 asked", len(lines))
	}
	jailed := e.ForJail()
	var inJail []string
	for _, l := range lines {
		if d := e.Shell(l.Cmd, ""); d.Decision == Allow {
			t.Errorf("line %d allowed unjailed: %s", l.N, l.Cmd)
		}
		if d := jailed.Shell(l.Cmd, ""); d.Decision == Allow {
			inJail = append(inJail, fmt.Sprintf("line %d: %s", l.N, oneLine(l.Cmd)))
		}
	}
	t.Logf("%d attacks; %d allowed jailed (the jail must contain them):\n%s",
		len(lines), len(inJail), strings.Join(inJail, "\n"))
}
