package shell

import (
	"strings"
	"testing"
)

// awkAttacks run a command, write or read a file, or read secrets from
// awk in a form a looser reader of awk misses. must is "opaque",
// "write:PATH" or "read:PATH".
var awkAttacks = []struct{ in, must string }{
	// Options that load a program file or a library, or write files.
	{"awk -W exec prog f", "opaque"},
	{"awk -Wexec=prog f", "opaque"},
	{"mawk -W exec prog f", "opaque"},
	{"gawk -W file=prog f", "opaque"},
	{"gawk -Wsource='BEGIN{system(\"id\")}'", "opaque"},
	{"gawk -E prog f", "opaque"},
	{"gawk --exec=prog f", "opaque"},
	{"gawk --ex prog f", "opaque"},
	{"gawk -i inc '{print}' f", "opaque"},
	{"gawk --include inc '{print}' f", "opaque"},
	{"gawk -l ext '{print}' f", "opaque"},
	{"gawk --load=ext '{print}' f", "opaque"},
	{"awk -f prog.awk f", "opaque"},
	{"busybox-awk -f prog.awk f", "opaque"},
	{"gawk -o/tmp/x '{print}' f", "opaque"},
	{"gawk --pro=/tmp/x '{print}' f", "opaque"},
	{"gawk -d '{print}' f", "opaque"},
	{"gawk -D '{print}' f", "opaque"},
	{"gawk --de '{print}' f", "opaque"},
	{"awk '{print}' -f prog.awk", "opaque"},
	{"awk \"$p\" f", "opaque"},
	// system(), pipes, @-calls.
	{"awk 'BEGIN{system(\"id\")}'", "opaque"},
	{"awk 'BEGIN{f=\"system\"; @f(\"id\")}'", "opaque"},
	{"awk '@include \"x\"'", "opaque"},
	{"awk '@load \"x\"'", "opaque"},
	{"awk '{print | \"sh\"}' f", "opaque"},
	{"awk 'BEGIN{\"id\" | getline x}'", "opaque"},
	{"gawk 'BEGIN{print \"x\" |& \"/inet/tcp/0/h/80\"}'", "opaque"},
	// The regex/division ambiguity: a string hidden in what is really a
	// regex, or a regex in what is really a division.
	{"awk 'BEGIN { if (1) /\"/; system(\"id\"); x = \"\" }'", "opaque"},
	{"awk '{a[1]=4; print a[1] /2/ 1 > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"awk '{print $1 /2/ 1; system(\"id\") }' f", "opaque"},
	{"awk '{ x = y /2; system(\"id\") #/ }' f", "opaque"},
	{"awk '/[/]/ { system(\"id\") }' f", "opaque"},
	{"awk '/[[:alpha:]/]/' f", "opaque"},
	{"awk '{ i++ /2/ 1 }' f", "opaque"},
	{"awk '{ print length /2/ 1 }' f", "opaque"},
	// Output redirections: after a line break, inside statements,
	// computed names.
	{"awk '{printf(\"%s\",\n$1) > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"awk '{print $1,\n$2 > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"awk '{print $1 \\\n > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"awk '{if ($1) print > \"/tmp/x\"; else print}' f", "write:/tmp/x"},
	{"awk '{print > \"/tmp/\" $1}' f", "opaque"},
	{"awk '{print > f}' f", "opaque"},
	{"awk '{print >> (\"/tmp/x\")}' f", "opaque"},
	{"awk '{print > \"\\x2e/x\"}' f", "opaque"},
	{"awk '{print (1)(2) > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"awk '{x = 1; print x ? 1 : 2 > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"awk '{print x ?\n1 : 2 > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"awk '{print 1 +\n2 > \"/tmp/x\"}' f", "write:/tmp/x"},
	{"original-awk 'BEGIN{system(\"id\")}'", "opaque"},
	// Reading any file: ARGV, ARGC, getline <, ENVIRON.
	{"awk 'BEGIN{ARGV[1]=\"/etc/shadow\"; ARGC=2} {print}'", "opaque"},
	{"awk 'BEGIN{ARGV[ARGC++]=\".env\"} {print}'", "opaque"},
	{"awk 'BEGIN{split(\".env\", ARGV)} {print}'", "opaque"},
	{"awk 'BEGIN{while ((getline l < \".env\") > 0) print l}'", "read:.env"},
	{"awk 'BEGIN{getline l < ENVIRON[\"HOME\"]}'", "opaque"},
	{"awk 'BEGIN{f=\".env\"; while ((getline l < f) > 0) print l}'", "read:(awk getline <)"},
	{"awk 'BEGIN{print ENVIRON[\"AWS_SECRET_ACCESS_KEY\"]}'", "opaque"},
	{"awk 'BEGIN{print SYMTAB[\"x\"]}'", "opaque"},
	// Not understood.
	{"awk 'BEGIN{1system(\"id\")}'", "opaque"},
	{"awk 'BEGIN{x = 0x1 system(\"id\")}'", "opaque"},
	{"awk 'BEGIN{print \"x}' f", "opaque"},
	{"awk 'BEGIN{x = `id`}' f", "opaque"},
	{"awk '{print (}' f", "opaque"},
}

// awkUses are ordinary awk calls; they must not escalate.
var awkUses = []string{
	"awk '{print $1}' f",
	"awk -F: '{print $2}' /etc/passwd",
	"awk -F, -v OFS=, '{print $1, $3}' f.csv",
	"awk 'NR==1' f",
	"awk '$3 > 100 {print $1}' f",
	"awk '{s += $2} END {print s}' f",
	"awk '{print ($1 > 2)}' f",
	"awk '/a|b/' f",
	"awk '{print \"a|b\"}' f",
	"awk '$1 || $2' f",
	"awk '{ n = a[1] / 2; print n }' f",
	"awk '{ print $1 / 2 }' f",
	"awk '{ print NR / 2 }' f",
	"awk '{ print 1.5e3, 2E-2, .5 }' f",
	"awk '{ if ($1 ~ /^#/) next; print }' f",
	"awk '{ gsub(/[[:space:]]+/, \" \"); print }' f",
	"awk 'length($0) > 80' f",
	"awk '{print > \"/dev/stderr\"}' f",
	"awk 'BEGIN { printf \"%d\\n\", 3 }'",
	"awk '{print}' n=1 f",
	"awk -- '{print}' f",
	"git log --oneline | awk '{print $1}'",
}

func TestAwkAttacks(t *testing.T) {
	for _, tc := range awkAttacks {
		t.Run(tc.in, func(t *testing.T) {
			got := Analyze(tc.in, testOpts)
			kind, path, _ := strings.Cut(tc.must, ":")
			ok := false
			for _, e := range got {
				ok = ok || kind == "opaque" && e.Kind == Opaque ||
					kind == "write" && e.Kind == Write && e.Path == path ||
					kind == "read" && e.Kind == Read && e.Path == path
			}
			if !ok {
				t.Errorf("Analyze(%q) hides %s: %q", tc.in, tc.must, briefs(got))
			}
		})
	}
}

func TestAwkUses(t *testing.T) {
	for _, in := range awkUses {
		t.Run(in, func(t *testing.T) {
			if got := Analyze(in, testOpts); hasKind(got, Opaque) {
				t.Errorf("Analyze(%q) escalates an ordinary use: %q", in, briefs(got))
			}
		})
	}
}

func FuzzAwk(f *testing.F) {
	for _, tc := range awkAttacks {
		f.Add(tc.in)
	}
	for _, in := range awkUses {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, prog string) {
		p := parseAwk(prog)
		if p.danger == "" && (strings.Contains(prog, "system") || strings.Contains(prog, "ENVIRON") || strings.Contains(prog, "ARGV")) {
			// Outside strings, regexes and comments these names escalate;
			// inside them they are text. Check by removing those.
			if awkNamesOutsideText(prog) {
				t.Fatalf("program %q uses a dangerous name but does not escalate", prog)
			}
		}
		checkWellFormed(t, prog, Analyze("awk -- '"+strings.ReplaceAll(prog, "'", "")+"' f", testOpts))
	})
}

// awkNamesOutsideText re-lexes prog and reports a dangerous name token.
func awkNamesOutsideText(prog string) bool {
	l := awkLexer{s: prog}
	for l.danger == "" {
		t := l.next()
		if t.kind == awkEOF {
			return false
		}
		if _, bad := awkDanger[t.text]; bad && t.kind == awkName {
			return true
		}
	}
	return false
}

// TestAwkEnviron: ENVIRON["HOME"] prints what printenv HOME would; any
// other use of ENVIRON still escalates (the environment holds tokens).
func TestAwkEnviron(t *testing.T) {
	for _, tc := range []struct {
		prog   string
		danger bool
	}{
		{`BEGIN { print ENVIRON["HOME"] }`, false},
		{`BEGIN { print ENVIRON["GOPATH"], ENVIRON["LC_ALL"] }`, false},
		{`{ print $1 > ENVIRON["HOME"] "/x" }`, true},
		{`BEGIN { getline l < ENVIRON["HOME"] }`, true},
		{`BEGIN { print ENVIRON["ANTHROPIC_API_KEY"] }`, true},
		{`BEGIN { print ENVIRON["GITHUB_TOKEN"] }`, true},
		{`BEGIN { for (k in ENVIRON) print k, ENVIRON[k] }`, true},
		{`BEGIN { k = "HOME"; print ENVIRON[k] }`, true},
		{`BEGIN { print ENVIRON["HO" "ME"] }`, true},
		{`BEGIN { print ENVIRON["HOME\x00"] }`, true},
		{`BEGIN { print ENVIRON }`, true},
		{`BEGIN { print ENVIRON["HOME"]; system("id") }`, true},
	} {
		if got := parseAwk(tc.prog).danger != ""; got != tc.danger {
			t.Errorf("parseAwk(%q) danger = %v (%q), want %v", tc.prog, got, parseAwk(tc.prog).danger, tc.danger)
		}
	}
}
