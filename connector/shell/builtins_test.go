package shell

import (
	"strings"
	"testing"
)

// builtinNameAttacks make bash evaluate an array subscript (and so run
// $(...)) through a builtin that takes a variable NAME, in a form the
// analyzer once read differently from bash. Each must escalate.
var builtinNameAttacks = []string{
	// printf -v: the name attached, clustered, after --, held in a variable.
	"printf -vX[$(id)] x",
	"printf -v'a[$(id)]' x",
	"printf -v 'a[i]' x",
	"printf -v 'a[x]' 1",
	"v='a[$(id)]'; printf -v \"$v\" x",
	"printf -v a[\\$\\(id\\)] x",
	"builtin printf -v 'a[i]' x",
	"command printf -vX[i] x",
	"printf -v -- x",
	"printf -q x",
	// test, [ and [[ -v / -R.
	"test -v 'a[i]'",
	"[ -v 'a[i]' ]",
	"[ ! -v 'a[x]' ]",
	"test -n x -a -v 'a[x]'",
	"test -R 'a[x]'",
	"[[ -v 'a[i]' ]]",
	"[[ -v a[x] ]]",
	"[[ -R 'a[x]' ]]",
	"v='a[$(id)]'; test -v \"$v\"",
	"v='a[$(id)]'; [ -v \"$v\" ]",
	"v='a[$(id)]'; [[ -v $v ]]",
	"t=-v; test $t 'a[$(id)]'",
	"t=-v; [ \"$t\" 'a[x]' ]",
	"x='-v a[$(id)]'; test $x",
	"test * ",
	"set -- -v 'a[x]'; test \"$@\"",
	// declare and friends, as clauses and as commands.
	"declare 'a[$(id)]=1'",
	"declare 'a[i]=1'",
	"declare -a 'x=([$(id)]=1)'",
	"declare -i 'x=a[$(id)]'",
	"declare -i x; declare 'x=a[y]'",
	"typeset 'a[i]'",
	"local 'a[i]=1'",
	"export 'a[i]=1'",
	"readonly 'a[i]=1'",
	"export 'PATH=/tmp/x'",
	"builtin declare 'a[i]=1'",
	"command declare -- 'a[i]=1'",
	"builtin declare -i 'x=a[i]'",
	"builtin declare -n r=x",
	"builtin declare -an r=x",
	"builtin export -Z x",
	// A quoted or expanded value that is a compound array assignment.
	"declare -a x='([$(id)]=1)'",
	"typeset -a x=\"([\\$(id)]=1)\"",
	"readonly -A m='([$(id)]=1)'",
	"declare -a x=\"$v\"",
	"x=(1); declare x=\"$v\"",
	"x[1]=1; export x=\"$v\"",
	"for i in 1 2; do declare x=\"$v\"; x=(1); done",
	"read -a x; declare x=$v",
	"mapfile x; typeset x=\"${v}\"",
	"(( x[1] = 2 )); declare x=\"\"$v",
	"declare PIPESTATUS=\"$v\"",
	// read, mapfile, readarray, unset, getopts, wait -p, let.
	"read 'a[i]'",
	"read -r 'a[x]'",
	"read -ra 'a[x]'",
	"read -a'a[x]'",
	"read -p 'x' -- 'a[x]'",
	"declare -i n; read n",
	"for i in 1 2; do read n; declare -i n; done",
	"for i in 1 2; do n=$v; declare -i n; done",
	"declare -i x; for x in 'a[$(id)]'; do :; done",
	"declare -ai arr; mapfile arr",
	"builtin declare -i n; read n",
	"builtin declare -a x; declare x=\"$v\"",
	"declare -i n; printf -v n %s \"$v\"",
	"mapfile 'a[x]'",
	"mapfile -t -- 'a[x]'",
	"readarray -d '' 'a[x]'",
	"mapfile -C 'id' a",
	"mapfile -tC id a",
	"unset 'a[i]'",
	"unset -v 'a[x]'",
	"unset -- 'a[x]'",
	"getopts ab 'a[x]'",
	"getopts -- ab 'a[x]'",
	"wait -p 'a[x]'",
	"wait -np'a[x]'",
	"wait -fp 'a[x]' 1",
	"let 'a[x]'",
	"let -- 'x=a[y]'",
	// compgen expands -W's word list and assigns -V's array.
	"compgen -W '$(id)' x",
	"compgen -aW '`id`' x",
	"compgen -V 'a[x]' -W 'a b'",
	"compgen -C id x",
	// Indirection and arithmetic.
	"echo ${!v}",
	"x='a[$(id)]'; echo $((x))",
	"echo $(( x ))",
	"declare -A m; (( m[$k]++ ))",
	"declare -A m; echo $(( m[\"$k\"] + 1 ))",
}

// builtinNameUses are ordinary uses of the same builtins; they must not
// escalate.
var builtinNameUses = []string{
	"printf '%s\\n' x",
	"printf -v x '%s' 1",
	"printf -vx 1",
	"printf -v 'a[0]' x",
	"printf -- '%s' x",
	"test -f x",
	"test -v x",
	"[ -v HOME ]",
	"[ -d \"$d\" ]",
	"[ \"$a\" = \"$b\" ]",
	"[ -n \"$(git status --porcelain)\" ]",
	"[ $# -eq 0 ]",
	"[ $? -ne 0 ]",
	"[[ -v x ]]",
	"[[ -v 'a[1]' ]]",
	"declare -a arr",
	"declare -A m",
	"local x=1",
	"export FOO=bar",
	"export 'FOO=bar baz'",
	"declare -r 'X=1'",
	"declare x=\"$v\"",
	"x=(1 2); declare y=\"$v\"",
	"declare -a arr=(a b)",
	"declare -A m; m[$k]=1; echo \"${m[$k]}\"",
	"declare -A m; (( m[x]++ ))",
	"declare -i n; n=1; n+=2",
	"declare -i x; x=$v true",
	"read -r line",
	"read -r a b c",
	"read -ra parts",
	"read -r -d '' x",
	"mapfile -t lines",
	"readarray -t arr",
	"unset x",
	"unset 'a[1]'",
	"unset -f f",
	"getopts ab opt",
	"wait -n",
	"wait -np pid",
	"compgen -W 'start stop' -- st",
}

func TestBuiltinNameAttacks(t *testing.T) {
	for _, in := range builtinNameAttacks {
		t.Run(in, func(t *testing.T) {
			if got := Analyze(in, testOpts); !hasKind(got, Opaque) {
				t.Errorf("Analyze(%q) does not escalate: %q", in, briefs(got))
			}
		})
	}
}

func TestBuiltinNameUses(t *testing.T) {
	for _, in := range builtinNameUses {
		t.Run(in, func(t *testing.T) {
			if got := Analyze(in, testOpts); hasKind(got, Opaque) {
				t.Errorf("Analyze(%q) escalates an ordinary use: %q", in, briefs(got))
			}
		})
	}
}

func TestBashGetopt(t *testing.T) {
	w := func(s string) Word { return Word{Text: s} }
	cases := []struct {
		name     string
		args     []Word
		spec     string
		letters  string
		operands int
		bad      bool
	}{
		{"attached value", []Word{w("-vX[1]"), w("f")}, printfOpts, "v", 1, false},
		{"separate value looks like an option", []Word{w("-v"), w("-x"), w("f")}, printfOpts, "v", 1, false},
		{"cluster then value", []Word{w("-ra"), w("arr")}, readOpts, "ra", 0, false},
		{"dashdash", []Word{w("--"), w("-v"), w("x")}, printfOpts, "", 2, false},
		{"stops at first operand", []Word{w("x"), w("-v"), w("y")}, printfOpts, "", 3, false},
		{"plus options of declare", []Word{w("+x"), w("a")}, declareOpts, "x", 1, false},
		{"plus is an operand for export", []Word{w("+x"), w("a")}, exportOpts, "", 2, false},
		{"lone dash is an operand", []Word{w("-"), w("a")}, readOpts, "", 2, false},
		{"unknown letter", []Word{w("-Z"), w("a")}, exportOpts, "", 0, true},
		{"missing value", []Word{w("-v")}, printfOpts, "", 0, true},
		{"dynamic word may be an option", []Word{{Text: "$o", Dynamic: true}, w("a")}, readOpts, "", 2, true},
		{"quoted prefix is an operand", []Word{{Text: `"x$o"`, Dynamic: true}}, readOpts, "", 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := bashGetopt(tc.args, tc.spec)
			if p.letters() != tc.letters || len(p.operands) != tc.operands || (p.bad != "") != tc.bad {
				t.Errorf("got letters %q, %d operands, bad %q", p.letters(), len(p.operands), p.bad)
			}
		})
	}
}

func FuzzBashGetopt(f *testing.F) {
	f.Add("-vX[1] f", printfOpts)
	f.Add("-ra arr", readOpts)
	f.Add("+x -- a", declareOpts)
	f.Fuzz(func(t *testing.T, line, spec string) {
		var args []Word
		for _, s := range strings.Fields(line) {
			args = append(args, Word{Text: s, Dynamic: strings.HasPrefix(s, "$")})
		}
		p := bashGetopt(args, spec)
		if len(p.operands) > len(args) {
			t.Fatalf("%d operands from %d words", len(p.operands), len(args))
		}
		if p.bad == "" && len(p.operands) > 0 && &p.operands[len(p.operands)-1] != &args[len(args)-1] {
			t.Fatalf("operands of %q are not a suffix of the words", line)
		}
	})
}
