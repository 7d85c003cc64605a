package policy

import (
	"testing"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

func TestArgvPatternCompile(t *testing.T) {
	bad := []string{"", "*", "** x", "'unterminated", `x\`, "/usr/bin/r*m", "a\x01b", "''"}
	for _, p := range bad {
		if _, err := compileArgv(p); err == nil {
			t.Errorf("compileArgv(%q) accepted", p)
		}
	}
	good := []string{"git", "git status **", "git ** --out* **", `"a b" c`, "'*' x", "./gradlew test **", "[ **"}
	for _, p := range good {
		if _, err := compileArgv(p); err != nil {
			t.Errorf("compileArgv(%q): %v", p, err)
		}
	}
}

func TestArgvMatch(t *testing.T) {
	tests := []struct {
		name      string
		pat       string
		cmd       shell.Effect
		allow     matchKind // as an allow rule
		may       matchKind // as a deny/escalate rule
		afterCD   bool
		openEnded bool
	}{
		{"exact", "git status", lit("git", "status"), matchExact, matchExact, false, false},
		{"exact count", "git status", lit("git", "status", "-s"), noMatch, noMatch, false, false},
		{"rest empty", "git status **", lit("git", "status"), matchExact, matchExact, false, false},
		{"rest many", "git status **", lit("git", "status", "-s", "x"), matchExact, matchExact, false, false},
		{"one", "npm run *", lit("npm", "run", "test"), matchExact, matchExact, false, false},
		{"one not two", "npm run *", lit("npm", "run", "a", "b"), noMatch, noMatch, false, false},
		{"one not zero", "npm run *", lit("npm", "run"), noMatch, noMatch, false, false},
		{"other sub", "git status **", lit("git", "push"), noMatch, noMatch, false, false},
		{"quoted star literal", "echo '*'", lit("echo", "x"), noMatch, noMatch, false, false},
		{"quoted star matches star", "echo '*'", lit("echo", "*"), matchExact, matchExact, false, false},
		{"word glob", "git ** --out* **", lit("git", "log", "--output=/x"), matchExact, matchExact, false, false},
		{"rest in middle", "git ** -c **", lit("git", "-c", "x", "status"), matchExact, matchExact, false, false},
		{"dynamic under rest", "ls **", dyn("ls", "$X"), matchDynamic, matchExact, false, false},
		{"dynamic at literal", "git push origin", dyn("git", "push", "$R"), noMatch, matchDynamic, false, false},
		{"dynamic at one", "npm run *", dyn("npm", "run", "$S"), noMatch, matchDynamic, false, false},
		{"dynamic may be many", "rm -rf /", dyn("rm", "$X"), noMatch, matchDynamic, false, false},
		{"dynamic may be none", "rm -rf", dyn("rm", "-rf", "$X"), noMatch, matchDynamic, false, false},
		{"dynamic name", "git status **", dyn("$G", "status"), noMatch, noMatch, false, false},
		{"open ended needs rest", "grep x", lit("grep", "x"), noMatch, matchDynamic, false, true},
		{"open ended rest", "grep **", lit("grep", "x"), matchDynamic, matchExact, false, true},
		{"slash name never allows bare rule", "rm **", lit("/usr/bin/../bin/rm", "x"), noMatch, matchExact, false, false},
		{"dot slash name", "rm **", lit("./rm", "x"), noMatch, matchExact, false, false},
		{"spelled path", "./gradlew test **", lit("./gradlew", "test"), matchExact, matchExact, false, false},
		{"spelled path after cd", "./gradlew test **", lit("./gradlew", "test"), noMatch, matchExact, true, false},
		{"path rule by base name", "/usr/bin/rm **", lit("rm", "x"), noMatch, matchExact, false, false},
		{"case folds for may only", "rm **", lit("RM", "x"), noMatch, matchExact, false, false},
		{"exe suffix for may only", "rm **", lit("rm.EXE", "x"), noMatch, matchExact, false, false},
		{"long s folds", "sudo **", lit("ſudo", "x"), noMatch, matchExact, false, false},
		{"cyrillic i is another name", "git push **", lit("gіt", "push"), noMatch, noMatch, false, false},
		{"backslash path", "rm **", lit(`C:\bin\rm.exe`, "x"), noMatch, matchExact, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compileArgv(tc.pat)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.matchAllow(tc.cmd.Args, tc.openEnded, tc.afterCD); got != tc.allow {
				t.Errorf("allow match = %v, want %v", got, tc.allow)
			}
			if got := p.matchMay(tc.cmd.Args, tc.openEnded); got != tc.may {
				t.Errorf("may match = %v, want %v", got, tc.may)
			}
		})
	}
}
