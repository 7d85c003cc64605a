package policy

import (
	"strconv"
	"strings"
	"testing"
)

// A syntax error is reported at the line at fault, not where yaml.v3's
// enclosing block began: the default policy (600 lines, the file people
// edit) broken at one line in each way a hand edit breaks it.
func TestSyntaxErrorLine(t *testing.T) {
	lines := strings.Split(string(DefaultYAML()), "\n")
	at := -1
	for i, l := range lines {
		if i > 150 && strings.HasPrefix(l, `    - "`) && strings.HasSuffix(l, `"`) {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("no quoted shell rule after line 150 in the default policy")
	}
	for _, tc := range []struct {
		name string
		edit func(string) string
		want string
	}{
		{"indented one more", func(s string) string { return " " + s }, "bad indentation"},
		{"indented one less", func(s string) string { return s[1:] }, "bad indentation"},
		{"indented as the key above", func(s string) string { return "  " + strings.TrimSpace(s) }, "bad indentation"},
		{"unclosed double quote", func(s string) string { return strings.TrimSuffix(s, `"`) }, "unclosed quote"},
		{"unclosed single quote", func(s string) string { return strings.Replace(strings.TrimSuffix(s, `"`), `"`, `'`, 1) }, "unclosed quote"},
		{"no space after the dash", func(s string) string { return strings.Replace(s, "- ", "-", 1) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := append([]string(nil), lines...)
			l[at] = tc.edit(l[at])
			_, err := Parse("p.yaml", []byte(strings.Join(l, "\n")))
			want := "p.yaml:" + itoa(at+1) + ": " + tc.want
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("line %d %q: error %v, want %q", at+1, l[at], err, want)
			}
		})
	}
}

// Quoted strings that span lines before the broken one do not move the
// reported line onto them.
func TestSyntaxErrorLineAfterMultilineString(t *testing.T) {
	src := "version: 1\nshell:\n  allow:\n    - \"git status\n      **\"\n    - {pattern: \"ls **\", reason: 'it''s fine'}\n     - \"make\"\n"
	_, err := Parse("p.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "p.yaml:7: bad indentation") {
		t.Errorf("error %v, want it at line 7", err)
	}
}

func TestNetworkRuleURL(t *testing.T) {
	for _, pat := range []string{"https://example.com/path", "http://example.com:8080", "ftp://x"} {
		_, err := Parse("p.yaml", []byte("version: 1\nnetwork:\n  allow:\n    - \""+pat+"\"\n"))
		if err == nil || !strings.Contains(err.Error(), "p.yaml:4:") || !strings.Contains(err.Error(), "use host[:port]") ||
			strings.Contains(err.Error(), "CIDR") {
			t.Errorf("%s: %v", pat, err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
