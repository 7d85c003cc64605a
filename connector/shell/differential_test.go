package shell

import (
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The differential tests build random programs from fragments chosen to
// hit the grammars' corners, let the real tool run (or compile) those the
// analyzer passes as harmless, and fail if the tool then ran a command,
// wrote a file or leaked a secret. Seeds are fixed: a failure reproduces.

const differentialRuns = 600

// randomProgram joins 1 to max fragments.
func randomProgram(r *rand.Rand, frags []string, max int) string {
	var b strings.Builder
	for k := 1 + r.Intn(max); k > 0; k-- {
		b.WriteString(frags[r.Intn(len(frags))])
	}
	return b.String()
}

// runIn runs name with args in a new directory (stdin "line\n", SEKRET in
// its environment, a file S holding a secret) and returns the directory
// and the output.
func runIn(t *testing.T, name string, args ...string) (dir, out string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "S"), []byte("TOPSECRET1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("line\n")
	cmd.Env = append(os.Environ(), "SEKRET=TOPSECRET2")
	b, _ := cmd.CombinedOutput()
	return dir, string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

var sedFragments = []string{":a", "b", "t", "T", " ", "\t", ";", "}", "{", "e id", "e", "w /tmp/x", "W x",
	"r x", "R x", "s/x/y/", "s/x/y/e", "s/x/y/w f", "s|x|y|", "y/a/b/", "#", "\n", "a\\", "i foo", "c\\\n",
	"/re/", "\\%re%", "[/]", "/[/]/", "/[[:alpha:]/]/", "I", "M", "!", "1~2", "0,", "$", "+3", "~4", ",", "v",
	"v 4.2", "q5", "l 3", "=", "p", "x", "\\", "/", "s", "g", "2", "]", "[", "n", "N", "D", "F", "z", "Q"}

// TestSedDifferential: whatever GNU sed --sandbox refuses for e, r or w,
// the parser finds.
func TestSedDifferential(t *testing.T) {
	testenv.RequireCommand(t, "sed")
	if _, ok := gnuSedRefuses(t, "p"); !ok {
		testenv.Skip(t, "sed is not GNU sed")
	}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < differentialRuns*4; n++ {
		prog := randomProgram(r, sedFragments, 6)
		if p := parseSed(prog); p.danger != "" || len(p.reads)+len(p.writes) > 0 {
			continue
		}
		if refused, _ := gnuSedRefuses(t, prog); refused {
			t.Fatalf("GNU sed finds e, r or w in %q, the parser does not", prog)
		}
	}
}

var awkFragments = []string{"BEGIN", "{", "}", "(", ")", "[", "]", " ", "\n", ";", "if (1)", "x", "a[1]", "/",
	"/2/", "\"", "#", "system(\"touch M\")", "print", "printf", " > \"M\"", ">", "\"M\"", "|", "\"touch M\"",
	"getline", "<", "1", ",", "?", ":", "++", "$", "\\\n", "/[/]/", "/\"/", "length", "else", "do", "while (0)",
	"for (;;) break", "x = ", "y", "-", "!", "~", "&&", "||", "==", "\"/\"", "a /", ") /", "] /", "} /",
	"x++ /", "\"a\" /", "/x/ /", "getline x <", "while ((", "/#/", "# /", "ARGV[1]=\"S\"", "ARGC=2",
	"ENVIRON[\"SEKRET\"]", "\"S\"", "print x", "printf(\"%s\",", "x)", "split(\"S\", ARGV)", "/[]/]/", "\\"}

// TestAwkDifferential: the installed awk never runs a command, creates a
// file or reads a secret with a program the parser passes.
func TestAwkDifferential(t *testing.T) {
	testenv.RequireCommand(t, "awk")
	r := rand.New(rand.NewSource(1))
	for ran := 0; ran < differentialRuns; {
		prog := randomProgram(r, awkFragments, 9)
		if p := parseAwk(prog); p.danger != "" || len(p.reads)+len(p.writes) > 0 || p.getline {
			continue
		}
		ran++
		dir, out := runIn(t, "awk", prog)
		if exists(filepath.Join(dir, "M")) || strings.Contains(out, "TOPSECRET") {
			t.Fatalf("awk ran a command, wrote a file or leaked a secret with %q, which the parser passes", prog)
		}
	}
}

var bashCommands = []string{"printf", "read", "mapfile", "readarray", "unset", "getopts", "wait", "test", "[",
	"[[", "declare", "export", "readonly", "typeset", "let", "compgen", "builtin printf", "command read",
	"builtin declare", "echo", "(("}

var bashWords = []string{"-v", "-vX", "-v'a[x]'", "-a", "-r", "-ra", "-p", "--", "-n", "-t", "-d ''", "-C",
	"-W", "-V", "-i", "-A", "+x", "-f", "-R", "!", "-o", "'a[x]'", "a", "'a[1]'", "x", "\"$v\"", "$v",
	"'a[$x]'", "'a[x]=1'", "1", "'x=a[x]'", "fmt", "'%s'", "]", "]]", "))", "-a'a[x]'", "-pv", "a[x]",
	"\"$w\"", "$w", "-e", "-u 0", "-N 1", "$((x))", "${!v}", "'$(touch M)'", "ab"}

// TestBashDifferential: bash never evaluates a subscript that runs a
// command through a builtin call the analyzer passes without Opaque.
func TestBashDifferential(t *testing.T) {
	testenv.RequireCommand(t, "bash")
	r := rand.New(rand.NewSource(1))
	for ran := 0; ran < differentialRuns; {
		var b strings.Builder
		b.WriteString(bashCommands[r.Intn(len(bashCommands))])
		for k := r.Intn(5); k > 0; k-- {
			b.WriteString(" " + bashWords[r.Intn(len(bashWords))])
		}
		script := "a=(1 2); x='b[$(touch M)]'; v='a[x]'; w=-v; " + b.String() + " <<< line"
		if hasKind(Analyze(script, testOpts), Opaque) {
			continue
		}
		ran++
		if dir, _ := runIn(t, "bash", "-c", script); exists(filepath.Join(dir, "M")) {
			t.Fatalf("bash ran a command with %q, which the analyzer passes: %q", script, briefs(Analyze(script, testOpts)))
		}
	}
}
