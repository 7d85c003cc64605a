package shell

import (
	"os/exec"
	"strings"
	"testing"
)

// sedAttacks hide e (runs a command), w (writes a file) or r (reads a
// file) where a looser reader of GNU sed's grammar sees something else.
// must is what has to surface: "opaque", "write:PATH" or "read:PATH".
var sedAttacks = []struct{ in, must string }{
	{"sed ':a e id' f", "opaque"},
	{"sed ':a w /tmp/x' f", "opaque"},
	{"sed -n ':a;w /tmp/x' f", "write:/tmp/x"},
	{"sed 'b x;e id' f", "opaque"},
	{"sed 'bx e id' f", "opaque"},
	{"sed 'tx	e id' f", "opaque"},
	{"sed 'Tx}e id' f", "opaque"},
	{"sed ':a#x;e id' f", "opaque"},
	{"sed 'v e id' f", "opaque"},
	{"sed 'v 4.2 w /tmp/x' f", "opaque"},
	{"sed 'v;e id' f", "opaque"},
	{"sed '1~2e id' f", "opaque"},
	{"sed '0,/x/e id' f", "opaque"},
	{"sed '/x/,~4e id' f", "opaque"},
	{"sed '/x/I,+3{e id\n}' f", "opaque"},
	{"sed '\\%x%M!e id' f", "opaque"},
	{"sed '/[/]/e id' f", "opaque"},
	{"sed '/[[:alpha:]/]/e id' f", "opaque"},
	{"sed 's/x/y/;e' f", "opaque"},
	{"sed 's/.*/id/e' f", "opaque"},
	{"sed 's/x/y/ge' f", "opaque"},
	{"sed 's/x/y/2 e' f", "opaque"},
	{"sed 's|x|y|Me' f", "opaque"},
	{"sed 's/[/]/x/e' f", "opaque"},
	{"sed 's/x/y/w /tmp/x' f", "write:/tmp/x"},
	{"sed 'y/a/b/;w /tmp/x' f", "write:/tmp/x"},
	{"sed '1{p;w /tmp/x\n}' f", "write:/tmp/x"},
	{"sed -e 'a\\' -e 'x' -e 'w /tmp/x' f", "write:/tmp/x"},
	{"sed -ne p -e 'W /tmp/x' f", "write:/tmp/x"},
	{"sed --expression='w /tmp/x' f", "write:/tmp/x"},
	{"sed --expr='w /tmp/x' f", "write:/tmp/x"},
	{"sed 'r .env' f", "read:.env"},
	{"sed '1R ~/.ssh/id_rsa' f", "read:~/.ssh/id_rsa"},
	{"sed 'r x;e id' f", "read:x;e id"},
	{"sed -e 'e id' --sandbox f", "opaque"},
	{"sed -f prog.sed f", "opaque"},
	{"sed --file=prog.sed f", "opaque"},
	{"sed -Z p f", "opaque"},
	{"sed -i '' 'w /tmp/x' f", "write:/tmp/x"},
	{"sed 'Z' f", "opaque"},
	{"gsed ':a e id' f", "opaque"},
	{"busybox sed 'v;e id' f", "opaque"},
	{"sed '{p' f", "opaque"},
	{"sed 's/x/y' f", "opaque"},
	// -i with a backup suffix that is a path.
	{"sed -i'/tmp/x*' s/a/b/ f", "opaque"},
	{"sed -i'../bak/*' s/a/b/ f", "write:../bak/f"},
	{"sed --in-place='.git/hooks/*' s/a/b/ pre-commit", "opaque"},
	{"sed -i'x*' s/a/b/ f", "write:xf"},
	{"sed -Ei'/*' s/a/b/ f", "opaque"},
	{"sed -i.bak s/a/b/ f", "write:f.bak"},
	{"sed -i \"$s\" s/a/b/ f", "opaque"},
	{"sed -i.b s/a/b/ \"$f\"", "opaque"},
}

// sedUses are ordinary sed calls; they must not escalate.
var sedUses = []string{
	"sed -n '1,20p' file",
	"sed -i 's/a/b/' f.go",
	"sed -i.bak 's/a/b/g' f.go",
	"sed -E 's/(a|b)+/x/g' f",
	"sed -e ':a;N;$!ba;s/\\n/ /g' f",
	"sed '/^#/d;/^$/d' f",
	"sed -n '/start/,/end/{p}' f",
	"sed 's#/usr/local#/opt#g' f",
	"sed '1~3d' f",
	"sed '0,/x/s//y/' f",
	"sed -n '$p' f",
	"sed 'y/abc/xyz/' f",
	"sed '/x/{:a;N;ba}' f",
	"sed '1i\\\nheader' f",
	"sed '$a footer; with semicolon' f",
	"sed -z 's/\\n/,/g' f",
	"sed -s -n '1p' a b",
	"sed --quiet -e 'p' f",
	"sed 's/[]/]/x/' f",
	"sed 's/x/y/w /dev/stdout' f",
	"sed --sandbox 's/a/b/e' f",
	"git diff | sed 's/^/  /'",
}

func TestSedAttacks(t *testing.T) {
	for _, tc := range sedAttacks {
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

func TestSedUses(t *testing.T) {
	for _, in := range sedUses {
		t.Run(in, func(t *testing.T) {
			if got := Analyze(in, testOpts); hasKind(got, Opaque) {
				t.Errorf("Analyze(%q) escalates an ordinary use: %q", in, briefs(got))
			}
		})
	}
}

// gnuSedRefuses reports whether GNU sed --sandbox refuses script because
// it has e, r or w; ok is false when no GNU sed is installed.
func gnuSedRefuses(t testing.TB, script string) (refused, ok bool) {
	out, err := exec.Command("sed", "--sandbox", "-n", "-e", script).CombinedOutput()
	if err != nil && strings.Contains(string(out), "unknown option") {
		return false, false
	}
	return strings.Contains(string(out), "disabled in sandbox mode"), true
}

// TestSedParserAgainstGNUSed checks each attack's program against the
// real GNU sed where there is one: when sed finds an e, r or w, the
// parser must too.
func TestSedParserAgainstGNUSed(t *testing.T) {
	if _, err := exec.LookPath("sed"); err != nil {
		t.Skip("no sed installed")
	}
	for _, prog := range []string{":a e id", "bx e id", "v 4.2 w /tmp/x", "1~2e id", "/[/]/e id",
		"s/x/y/2 e", "/x/I,+3{e id\n}", "\\%x%M!e id", "y/a/b/;w /tmp/x", "r x;e id", "s/[]/]/x/w /tmp/y"} {
		refused, ok := gnuSedRefuses(t, prog)
		if !ok {
			t.Skip("sed is not GNU sed")
		}
		p := parseSed(prog)
		found := p.danger != "" || len(p.reads)+len(p.writes) > 0
		if refused != found {
			t.Errorf("program %q: GNU sed refuses it in sandbox mode: %v, parser finds e/r/w: %v (%+v)", prog, refused, found, p)
		}
	}
}

func FuzzSed(f *testing.F) {
	for _, tc := range sedAttacks {
		f.Add(tc.in)
	}
	for _, in := range sedUses {
		f.Add(in)
	}
	_, err := exec.LookPath("sed")
	oracle := err == nil
	f.Fuzz(func(t *testing.T, prog string) {
		p := parseSed(prog)
		checkWellFormed(t, prog, Analyze("sed -e '"+strings.ReplaceAll(prog, "'", "")+"' f", testOpts))
		if !oracle || p.danger != "" || len(p.reads)+len(p.writes) > 0 || strings.IndexByte(prog, 0) >= 0 || strings.HasPrefix(prog, "-") {
			return
		}
		if refused, ok := gnuSedRefuses(t, prog); ok && refused {
			t.Fatalf("GNU sed finds e, r or w in %q, the parser does not", prog)
		}
	})
}
