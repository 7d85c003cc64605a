package shell

import (
	"slices"
	"strings"
	"testing"
)

type effectCase struct {
	name string
	in   string
	want []string // brief forms, in order
}

func runEffectCases(t *testing.T, cases []effectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := briefs(Analyze(tc.in, testOpts))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Analyze(%q)\n got: %q\nwant: %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestAnalyzeEveryday(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"git status", "git status", []string{"exec git status"}},
		{"ls -la", "ls -la", []string{"exec ls -la", "read ."}},
		{"npm test", "npm test", []string{"exec npm test"}},
		{"go test", "go test ./...", []string{"exec go test ./..."}},
		{"pipe", "cat f | grep x", []string{"exec cat f", "read f", "exec grep x"}},
		{"git diff", "git diff HEAD~1 -- file.go", []string{"exec git diff HEAD~1 -- file.go"}},
		{"cd and make", "cd dir && make test", []string{"exec cd dir", "exec make test"}},
		{"grep file", "grep -n foo main.go", []string{"exec grep -n foo main.go", "read main.go"}},
		{"grep -e", "grep -e foo -e bar a b", []string{"exec grep -e foo -e bar a b", "read a", "read b"}},
		{"grep -r default dot", "grep -rn TODO", []string{"exec grep -rn TODO", "read ."}},
		{"rg", "rg -n foo src", []string{"exec rg -n foo src", "read src"}},
		{"head -n", "head -n 20 README.md", []string{"exec head -n 20 README.md", "read README.md"}},
		{"wc", "wc -l *.go", []string{"exec wc -l ~{*.go}", "read ~{*.go}"}},
		{"echo", "echo hello world", []string{"exec echo hello world"}},
		{"find names", "find . -name '*.go' -type f", []string{"exec find . -name *.go -type f", "read ."}},
		{"jq", "jq .name package.json", []string{"exec jq .name package.json", "read package.json"}},
		{"comment", "ls # rm -rf /", []string{"exec ls", "read ."}},
		{"empty", "", []string{}},
		{"only comment", "# nothing", []string{}},
	})
}

func TestAnalyzeNodeKinds(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"and or", "a && b || c", []string{"exec a", "exec b", "exec c"}},
		{"semicolon newline", "a; b\nc", []string{"exec a", "exec b", "exec c"}},
		{"background", "a & b", []string{"exec a", "exec b"}},
		{"negation", "! a", []string{"exec a"}},
		{"pipe all", "a |& b", []string{"exec a", "exec b"}},
		{"subshell", "(a; b)", []string{"exec a", "exec b"}},
		{"block", "{ a; b; }", []string{"exec a", "exec b"}},
		{"if", "if a; then b; elif c; then d; else e; fi", []string{"exec a", "exec b", "exec c", "exec d", "exec e"}},
		{"while", "while a; do b; done", []string{"exec a", "exec b"}},
		{"until", "until a; do b; done", []string{"exec a", "exec b"}},
		{"for", "for f in x y; do cat $f; done", []string{"exec cat ~{$f}", "read ~{$f}"}},
		{"for c style", "for ((i=0; i<3; i++)); do echo $i; done", []string{"exec echo ~{$i}"}},
		{"select", "select x in a b; do echo $x; done", []string{"exec echo ~{$x}"}},
		{"case", "case $x in a) b;; *) c;; esac", []string{"exec b", "exec c"}},
		{"function", "f() { a; }", []string{"opaque", "exec a"}},
		{"function keyword", "function f { a; }", []string{"opaque", "exec a"}},
		{"command substitution", "echo $(a)", []string{"exec a", "exec echo ~{$(a)}"}},
		{"backquotes", "echo `a`", []string{"exec a", "exec echo ~{`a`}"}},
		{"process substitution", "diff <(a) <(b)", []string{"exec a", "exec b", "exec diff ~{<(a)} ~{<(b)}", "read ~{<(a)}", "read ~{<(b)}"}},
		{"arithmetic command", "((x = 1 + 2))", []string{}},
		{"arithmetic with substitution", "echo $(( $(a) + 1 ))", []string{"exec a", "opaque", "exec echo ~{$(( $(a) + 1 ))}"}},
		{"arithmetic subscript substitution", "x=0; echo $((a[$(b)] + x))", []string{"exec b", "opaque", "exec echo ~{$((a[$(b)] + x))}", "opaque"}},
		{"test clause", "[[ -f x && $y == z* ]]", []string{}},
		{"test clause substitution", "[[ $(a) == b ]]", []string{"exec a"}},
		{"declare", "declare -r x=1", []string{}},
		{"local", "local x=$(a)", []string{"exec a"}},
		{"export", "export FOO=bar", []string{}},
		{"readonly", "readonly x=1", []string{}},
		{"typeset", "typeset x=1", []string{}},
		{"let", "let x=1+2", []string{}},
		{"let string", `let "x=1"`, []string{"opaque"}},
		{"coproc", "coproc a", []string{"exec a"}},
		{"coproc named", "coproc NAME { a; }", []string{"exec a"}},
		{"time clause", "time a", []string{"exec a"}},
		{"time posix", "time -p a", []string{"exec a"}},
		{"assignment only", "x=1", []string{}},
		{"assignment substitution", "x=$(a)", []string{"exec a"}},
		{"array assignment", "arr=(a b $(c))", []string{"exec c"}},
		{"param default substitution", "echo ${x:-$(a)}", []string{"exec a", "exec echo ~{${x:-$(a)}}"}},
		{"here-string substitution", "cat <<< $(a)", []string{"exec a", "exec cat"}},
		{"heredoc substitution", "cat <<X\n$(a)\nX", []string{"exec a", "exec cat"}},
		{"quoted heredoc no substitution", "cat <<'X'\n$(a)\nX", []string{"exec cat"}},
		{"parse error", "echo (", []string{"opaque"}},
		{"unterminated quote", "echo 'x", []string{"opaque"}},
	})
}

func TestAnalyzeWords(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"single quotes", "echo 'a b'", []string{"exec echo a b"}},
		{"double quotes", `echo "a b"`, []string{"exec echo a b"}},
		{"mixed quotes", `echo a'b'"c"`, []string{"exec echo abc"}},
		{"escapes", `echo a\ b \$x`, []string{"exec echo a b $x"}},
		{"double quote escapes", `echo "a\"b\$c\d"`, []string{`exec echo a"b$c\d`}},
		{"ansi c", `echo $'a\tb\x41\101\u00e9'`, []string{"exec echo a\tbAAé"}},
		{"ansi c nul truncates", `echo $'ab\0cd'`, []string{"exec echo ab"}},
		{"brace list", "echo a{b,c}d", []string{"exec echo abd acd"}},
		{"brace nested", "echo {a,b{1,2}}", []string{"exec echo a b1 b2"}},
		{"brace sequence", "echo {1..3}", []string{"exec echo 1 2 3"}},
		{"brace sequence padded", "echo {08..10}", []string{"exec echo 08 09 10"}},
		{"brace letters", "echo {a..c}", []string{"exec echo a b c"}},
		{"brace not expanded", "echo {a} {} a{b", []string{"exec echo {a} {} a{b"}},
		{"quoted brace", `echo "{a,b}"`, []string{"exec echo {a,b}"}},
		{"glob", "echo *.go", []string{"exec echo ~{*.go}"}},
		{"quoted glob", `echo "*.go"`, []string{"exec echo *.go"}},
		{"glob with quoted part", `echo "a*"*`, []string{`exec echo ~{a\**}`}},
		{"extglob", "echo @(a|b)", []string{"exec echo ~{@(a|b)}"}},
		{"extglob reaching", "echo .@(sandbox|x)", []string{"protected", "exec echo ~{.@(sandbox|x)}"}},
		{"tilde", "echo ~/x ~", []string{"exec echo ~/x ~"}},
		{"tilde user", "echo ~root/x", []string{"exec echo ~{~root/x}"}},
		{"param", `echo "$x"`, []string{`exec echo ~{"$x"}`}},
		{"locale string", `echo $"x"`, []string{`exec echo ~{$"x"}`}},
		{"line continuation", "echo a\\\nb", []string{"exec echo ab"}},
	})
}

func TestAnalyzeRedirections(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"write", "echo x > out", []string{"write out", "exec echo x"}},
		{"append", "echo x >> out", []string{"write out", "exec echo x"}},
		{"clobber", "echo x >| out", []string{"write out", "exec echo x"}},
		{"all", "a &> out", []string{"write out", "exec a"}},
		{"append all", "a &>> out", []string{"write out", "exec a"}},
		{"read write", "a <> f", []string{"write f", "exec a"}},
		{"read", "a < in", []string{"read in", "exec a"}},
		{"dup", "a 2>&1 >&2 <&0 3>&-", []string{"exec a"}},
		{"dup to file", "a >& out", []string{"write out", "exec a"}},
		{"dev null", "a > /dev/null 2>/dev/stderr < /dev/null", []string{"exec a"}},
		{"dev fd", "a > /dev/fd/3", []string{"exec a"}},
		{"dev tcp", "a > /dev/tcp/example.com/80", []string{"net example.com:80", "exec a"}},
		{"dev udp", "a < /dev/udp/10.0.0.1/53", []string{"net 10.0.0.1:53", "exec a"}},
		{"dev tcp dynamic", "a > /dev/tcp/$h/80", []string{"net ~{$h:80}", "exec a"}},
		{"dynamic target", "a > $f", []string{"write ~{$f}", "exec a"}},
		{"glob target", "a > *.log", []string{`write ~{*.log}`, "exec a"}},
		{"brace target", "a > {x,y}", []string{"write x", "write y", "exec a"}},
		{"procsubst target", "a > >(b)", []string{"exec b", "exec a"}},
		{"fd variable", "exec {fd}>out", []string{"write out", "exec exec", "opaque"}},
		{"redirect only", "> out", []string{"write out"}},
		{"compound redirect", "{ a; } > out", []string{"write out", "exec a"}},
		{"heredoc to cat", "cat <<X > out\nhello\nX", []string{"write out", "exec cat"}},
	})
}

func TestAnalyzeCd(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"cd and", "cd sub && cat x", []string{"exec cd sub", "exec cat x", "read sub/x"}},
		{"cd chain", "cd a && cd b && cat x", []string{"exec cd a", "exec cd b", "exec cat x", "read a/b/x"}},
		{"cd then sequence", "cd sub; cat x", []string{"exec cd sub", "exec cat x", "read ~{$PWD/x}"}},
		{"cd and then sequence", "cd sub && cat x; cat y", []string{"exec cd sub", "exec cat x", "read sub/x", "exec cat y", "read ~{$PWD/y}"}},
		{"cd or exit", "cd sub || exit 1; cat x", []string{"exec cd sub", "exec exit 1", "exec cat x", "read sub/x"}},
		{"cd in subshell", "(cd sub && cat x); cat y", []string{"exec cd sub", "exec cat x", "read sub/x", "exec cat y", "read y"}},
		{"cd in pipeline", "cd sub | cat; cat y", []string{"exec cd sub", "exec cat", "exec cat y", "read y"}},
		{"cd dynamic", "cd $d && cat x", []string{"exec cd ~{$d}", "exec cat x", "read ~{$PWD/x}"}},
		{"cd absolute", "cd /etc && cat passwd", []string{"exec cd /etc", "exec cat passwd", "read /etc/passwd"}},
		{"cd home", "cd && cat x", []string{"exec cd", "exec cat x", "read ~/x"}},
		{"cd dash", "cd - && cat x", []string{"exec cd -", "exec cat x", "read ~{$PWD/x}"}},
		{"absolute after cd", "cd $d; cat /etc/hosts", []string{"exec cd ~{$d}", "exec cat /etc/hosts", "read /etc/hosts"}},
		{"cd in loop", "for d in a b; do cd $d; cat x; done", []string{"exec cd ~{$d}", "exec cat x", "read ~{$PWD/x}"}},
		{"glob after cd", "cd sub && cat *.go", []string{"exec cd sub", "exec cat ~{*.go}", "read ~{sub/*.go}"}},
		{"redirect after cd", "cd sub && echo x > out", []string{"exec cd sub", "write sub/out", "exec echo x"}},
		{"pushd popd", "pushd a && cat x; popd; cat y", []string{"exec pushd a", "exec cat x", "read a/x", "exec popd", "exec cat y", "read ~{$PWD/y}"}},
		{"env -C", "env -C sub cat x; cat y", []string{"exec cd sub", "exec cat x", "read sub/x", "exec cat y", "read y"}},
		{"git -C output", "git -C sub log --output=o", []string{"exec git -C sub log --output=o", "write sub/o"}},
		{"nested shell inherits", "cd sub && bash -c 'cat x; cd ..'; cat y", []string{"exec cd sub", "exec cat x", "read sub/x", "exec cd ..", "exec cat y", "read ~{$PWD/y}"}},
	})
}

func TestAnalyzeArgvIsNotRejoined(t *testing.T) {
	got := briefs(AnalyzeArgv([]string{"echo", "a; rm -rf /", "$(id)"}, testOpts))
	want := []string{"exec echo a; rm -rf / $(id)"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	effects := AnalyzeArgv([]string{"echo", "a; rm -rf /"}, testOpts)
	if len(effects[0].Args) != 2 || effects[0].Args[1].Text != "a; rm -rf /" {
		t.Fatalf("argv word changed: %+v", effects[0].Args)
	}
}

func TestAnalyzeArgv(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want []string
	}{
		{"plain", []string{"git", "status"}, []string{"exec git status"}},
		{"literal glob", []string{"ls", "*"}, []string{"exec ls *", "read *"}},
		{"wrapper", []string{"timeout", "5", "git", "push"}, []string{"exec git push"}},
		{"shell body", []string{"bash", "-c", "rm -rf x"}, []string{"exec rm -rf x", "write x"}},
		{"protected", []string{"cat", ".sandbox/policy.yaml"}, []string{"protected", "exec cat .sandbox/policy.yaml", "read .sandbox/policy.yaml"}},
		{"eval", []string{"eval", "ls"}, []string{"exec eval ls", "opaque"}},
		{"empty", nil, []string{"opaque"}},
		{"control char", []string{"echo", "\x1b[2J"}, []string{"opaque", "exec echo \x1b[2J"}},
		{"cd does nothing", []string{"cd", "x"}, []string{"exec cd x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := briefs(AnalyzeArgv(tc.argv, testOpts))
			if !slices.Equal(got, tc.want) {
				t.Errorf("AnalyzeArgv(%q)\n got: %q\nwant: %q", tc.argv, got, tc.want)
			}
		})
	}
}

func TestEffectFields(t *testing.T) {
	effects := Analyze("timeout 5 git push > log.txt", testOpts)
	if len(effects) != 2 {
		t.Fatalf("effects: %q", briefs(effects))
	}
	w, x := effects[0], effects[1]
	if w.Kind != Write || w.Path != "log.txt" || w.Reason != "redirection >" || w.Source != "> log.txt" {
		t.Errorf("write effect: %+v", w)
	}
	if x.Kind != Exec || !strings.Contains(x.Reason, "timeout") || x.Source != "timeout 5 git push > log.txt" {
		t.Errorf("exec effect: %+v", x)
	}
	long := "echo " + strings.Repeat("a", 1000)
	if src := Analyze(long, testOpts)[0].Source; len(src) > maxSource+len("…") {
		t.Errorf("source not clipped: %d bytes", len(src))
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Exec: "exec", Write: "write", Read: "read", Network: "network", Opaque: "opaque", Protected: "protected", 0: "unknown"} {
		if k.String() != want {
			t.Errorf("%d: %q", k, k.String())
		}
	}
}
