package shell

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSimpleCommand(t *testing.T) {
	yes := map[string][]string{
		"git status --short":            {"git", "status", "--short"},
		"ls -la":                        {"ls", "-la"},
		"/bin/true":                     {"/bin/true"},
		"./configure --prefix=/usr":     {"./configure", "--prefix=/usr"},
		"go test ./... -run=TestX":      {"go", "test", "./...", "-run=TestX"},
		`grep -rn 'a b$' src`:           {"grep", "-rn", "a b$", "src"},
		`echo2 "hello world"`:           {"echo2", "hello world"},
		`git commit -m "fix: x, y"`:     {"git", "commit", "-m", "fix: x, y"},
		`npm  run   build`:              {"npm", "run", "build"},
		`a'b'"c"d`:                      {"abcd"},
		"make -j4 CC=gcc":               {"make", "-j4", "CC=gcc"},
		"curl user@host:8080/x%20y":     {"curl", "user@host:8080/x%20y"},
		`cat ''`:                        {"cat", ""},
		"   cargo build   ":             {"cargo", "build"},
		"ls;":                           {"ls"},
		"ls # a comment":                {"ls"},
		`python3 -c 'print(1); x=[*a]'`: {"python3", "-c", "print(1); x=[*a]"},
	}
	for script, want := range yes {
		got, ok := SimpleCommand(script)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("SimpleCommand(%q) = %q, %v; want %q", script, got, ok, want)
		}
	}
	no := []string{
		"", "   ", "true", "false", "echo hi", "cd /tmp", "exec ls", "command ls", "builtin ls",
		"eval ls", "source x", ". x", "test -f x", "[ -f x ]", "[[ -f x ]]", "printf x", "kill 1",
		"pwd", "read x", "export A=1", "time ls", "! ls", "ls &", "ls; pwd", "ls && pwd",
		"ls || pwd", "ls | wc", "ls > out", "ls 2>&1", "ls < in", "A=1 ls", "ls $HOME",
		"ls ${x}", "ls $(id)", "ls `id`", "ls *.go", "ls a?", "ls [ab]", "ls {a,b}", "ls ~",
		"ls ~/x", `ls a\ b`, `ls "$x"`, `ls "a\"b"`, "ls $'a'", `ls $"a"`, "ls !x",
		"ls\npwd", "ls\x00", "(ls)", "{ ls; }", "if x; then y; fi", "f() { ls; }",
		"ls 'unterminated", "coproc ls", "ls <<EOF", "((1))", "let x=1", "x=1",
		"ls @(a|b)", "ls !(a)", "ls a=b=$c", "mapfile x", "ls\tpwd |x",
		strings.Repeat("a", 5000),
	}
	for _, script := range no {
		if got, ok := SimpleCommand(script); ok {
			t.Errorf("SimpleCommand(%q) = %q: want a shell", script, got)
		}
	}
}

// TestSimpleCommandMatchesBash: for every script SimpleCommand reads as
// one program, bash starts that program with those arguments. The program
// is a stand-in that prints its arguments, under the command's name on
// PATH; scripts are built at random from words and quotes.
func TestSimpleCommandMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	bin := t.TempDir()
	dump := "#!/bin/sh\nprintf '%s\\n' \"$0\" >&2\nfor a do printf '%s\\0' \"$a\"; done\n"
	names := []string{"prog", "x-1", "a.b", "cmd_2"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(dump), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	frags := []string{" ", "  ", "a", "-x", "--flag=v", "./p", "x/y", "'q s'", `"d q"`, `"a$"`, "'$x'", "''", `""`,
		"'", `"`, "$x", "*", "?", "{a,b}", "~", "\\", ";", "|", "&", ">", "#", "=", ":", ",", "%", "@", "+", "(", ")",
		"!", "[", "]", "'a\"b'", `"a'b"`, "\t"}
	r := rand.New(rand.NewSource(7))
	checked := 0
	for i := 0; i < 1500; i++ {
		script := names[r.Intn(len(names))] + " " + randomProgram(r, frags, 6)
		argv, ok := SimpleCommand(script)
		if !ok {
			continue
		}
		checked++
		cmd := exec.Command(bash, "-c", script)
		cmd.Env = []string{"PATH=" + bin, "x=EXPANDED"}
		cmd.Dir = bin
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v %s", script, err, stderr.String())
		}
		got := strings.Split(string(out), "\x00")
		got = got[:len(got)-1]
		if strings.TrimSpace(stderr.String()) != filepath.Join(bin, argv[0]) || !slices.Equal(got, argv[1:]) {
			t.Errorf("%q: bash ran %s %q; SimpleCommand said %q", script, strings.TrimSpace(stderr.String()), got, argv)
		}
	}
	if checked < 150 {
		t.Fatalf("only %d of the random scripts were simple commands: the generator no longer exercises SimpleCommand", checked)
	}
}

func FuzzSimpleCommand(f *testing.F) {
	for _, s := range []string{"git status", `a "b c" 'd'`, "ls *", "x=1 y", "echo $(id)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		argv, ok := SimpleCommand(script)
		if !ok {
			return
		}
		if len(argv) == 0 || argv[0] == "" || shellOwn(argv[0]) {
			t.Fatalf("%q: argv %q", script, argv)
		}
		// whatever a simple command's words hold, the script itself had
		// none of the characters that would make bash expand something
		// outside quotes: a re-quoted argv must read back the same
		var b strings.Builder
		for i, a := range argv {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("'" + strings.ReplaceAll(a, "'", `'"'"'`) + "'")
		}
		again, ok := SimpleCommand(b.String())
		if !ok && !shellOwn(argv[0]) || ok && !slices.Equal(again, argv) {
			t.Fatalf("%q: argv %q re-quoted as %q reads %q, %v", script, argv, b.String(), again, ok)
		}
	})
}
