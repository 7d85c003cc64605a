package hookd

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// exportValues are values bash quotes in each of its ways: plain, with
// the characters double quotes escape, with every control and high byte
// (which it writes as $'...' escapes, or raw in a UTF-8 locale), with
// newlines, with text that looks like the format itself.
func exportValues() []string {
	vals := []string{"", "plain", `q"\$` + "`" + `\\z`, "a b\tc", "x\ny\n", "\n", "'", `$'x'`, "declare -x EVIL=\"1\"",
		"\"\ndeclare -x EVIL=1\n", "é ü ñ 日本", "\x1b[31mred", "=", "a=b=c", "\\", "\\n", "$HOME", "!", "\r\n"}
	var all strings.Builder
	for c := 1; c < 256; c++ {
		all.WriteByte(byte(c))
		vals = append(vals, "<"+string(rune(0))[:0]+string([]byte{byte(c)})+">")
	}
	return append(vals, all.String())
}

// TestParseExportsReadsWhatBashWrote exports every value in a real bash,
// in the C and a UTF-8 locale, in its normal and its POSIX mode, and
// reads its `export -p` back: each variable must come back byte for byte,
// and nothing else may appear.
func TestParseExportsReadsWhatBashWrote(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	vals := exportValues()
	var script strings.Builder
	for i := range vals {
		script.WriteString("export V" + itoa(i) + "=\"$V_IN" + itoa(i) + "\"; unset -v V_IN" + itoa(i) + "\n")
	}
	script.WriteString("export UNSET_BUT_EXPORTED; declare -ax ARR=([0]=\"a\" [3]=$'b\\nc'); declare -Ax MAP=([k]=\"v\" [\"a b\"]=1); declare -rx RO=ro; declare -ix NUM=7\n")
	for _, mode := range []string{"", "set -o posix\n"} {
		for _, locale := range []string{"C", "C.UTF-8"} {
			env := []string{"LC_ALL=" + locale, "PATH=/usr/bin:/bin"}
			for i, v := range vals {
				env = append(env, "V_IN"+itoa(i)+"="+v)
			}
			cmd := exec.Command(bash, "-c", mode+script.String()+"builtin export -p")
			cmd.Env = env
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bash: %v", err)
			}
			got, err := ParseExports(string(out))
			if err != nil {
				t.Fatalf("%s%s: %v\n%s", mode, locale, err, out)
			}
			want := map[string]string{"RO": "ro", "NUM": "7", "LC_ALL": locale, "PATH": "/usr/bin:/bin"}
			for i, v := range vals {
				want["V"+itoa(i)] = v
			}
			seen := map[string]bool{}
			for _, kv := range got {
				name, value, _ := strings.Cut(kv, "=")
				w, ok := want[name]
				switch {
				case !ok && (name == "PWD" || name == "SHLVL" || name == "OLDPWD" || name == "_"):
				case !ok:
					t.Errorf("%s%s: unexpected variable %q", mode, locale, kv)
				case w != value:
					t.Errorf("%s%s: %s = %q, want %q", mode, locale, name, value, w)
				}
				seen[name] = true
			}
			for name := range want {
				if !seen[name] {
					t.Errorf("%s%s: %s missing", mode, locale, name)
				}
			}
		}
	}
}

func TestParseExportsRefusesWhatBashNeverWrites(t *testing.T) {
	for _, in := range []string{
		"A=1\n",
		"declare -x A=1\n",             // unquoted
		"declare -x A=\"1\n",           // unterminated
		"declare -x A=\"$HOME\"\n",     // unescaped $
		"declare -x A=\"`id`\"\n",      // unescaped `
		"declare -x A=$'\\q'\n",        // unknown escape
		"declare -x A=$'\\0'\n",        // NUL
		"declare -x A=$'x\n",           // unterminated
		"declare -x A=\"1\"junk\n",     // trailing text
		"declare -- A=\"1\"\n",         // not exported
		"declare -xZ A=\"1\"\n",        // unknown flag
		"declare -x 1A=\"1\"\n",        // a name starting with a digit
		"declare -x A-B=\"1\"\n",       // not a name
		"declare -x A=\"1\"",           // no end of line
		"export\n",                     // no name
		"readonly -x A=\"1\"\n",        // another builtin's output
		"declare -x A=$'\\x'\n",        // hex without digits
		"declare -x A=\"1\" B=\"2\"\n", // two on a line
	} {
		if env, err := ParseExports(in); !errors.Is(err, ErrRequest) {
			t.Errorf("ParseExports(%q) = %q, %v; want ErrRequest", in, env, err)
		}
	}
}

func FuzzParseExports(f *testing.F) {
	f.Add("declare -x A=\"1\"\nexport B=$'\\n\\303'\ndeclare -ax C=([0]=\"1\")\ndeclare -x D\n")
	f.Fuzz(func(t *testing.T, in string) {
		env, err := ParseExports(in)
		if err != nil {
			return
		}
		for _, kv := range env {
			name, _, ok := strings.Cut(kv, "=")
			if !ok || name == "" || strings.IndexByte(kv, 0) >= 0 || strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != "" || '0' <= name[0] && name[0] <= '9' {
				t.Errorf("accepted entry %q", kv)
			}
		}
		_ = slices.Clone(env)
	})
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
