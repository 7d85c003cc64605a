package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseShims(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    []string
		wantErr string
	}{
		{"absent: the default list", "version: 1\n", nil, ""},
		{"a list", "version: 1\nshims: [git, make, python3.12, g++]\n", []string{"git", "make", "python3.12", "g++"}, ""},
		{"empty: nothing shimmed", "version: 1\nshims: []\n", []string{}, ""},
		{"not a list", "version: 1\nshims: git\n", nil, ":2: shims: a list"},
		{"a path", "version: 1\nshims: [/usr/bin/git]\n", nil, ":2: shims: \"/usr/bin/git\""},
		{"sandbox itself", "version: 1\nshims: [sandbox]\n", nil, "not a command name"},
		{"dot name", "version: 1\nshims: [.policy-cache]\n", nil, "not a command name"},
		{"dash name", "version: 1\nshims: [-x]\n", nil, "not a command name"},
		{"a number", "version: 1\nshims: [7]\n", nil, "not a command name"},
		{"a mapping", "version: 1\nshims: [{git: 1}]\n", nil, "not a command name"},
		{"twice", "version: 1\nshims: [git, git]\n", nil, "listed twice"},
		{"too long", "version: 1\nshims: [" + strings.Repeat("a", 65) + "]\n", nil, "not a command name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("policy.yaml", []byte(tc.yaml))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrInvalidPolicy) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (p.Shims == nil) != (tc.want == nil) || !slices.Equal(p.Shims, tc.want) {
				t.Errorf("Shims = %#v, want %#v", p.Shims, tc.want)
			}
		})
	}
}

func TestShimsSurviveTheCache(t *testing.T) {
	for _, shims := range []string{"", "shims: []\n", "shims: [git, make]\n"} {
		p, err := Parse("policy.yaml", []byte("version: 1\n"+shims))
		if err != nil {
			t.Fatal(err)
		}
		data, err := EncodeCache(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeCache(data, p.File, p.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		if (back.Shims == nil) != (p.Shims == nil) || !slices.Equal(back.Shims, p.Shims) {
			t.Errorf("%q: Shims %#v after the cache, want %#v", shims, back.Shims, p.Shims)
		}
	}
}
