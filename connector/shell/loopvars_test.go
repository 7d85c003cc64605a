package shell

import (
	"strings"
	"testing"
)

// TestLoopItems: a quoted loop variable over literal or glob items names
// those items as a path; any other value it may hold keeps it unknown.
func TestLoopItems(t *testing.T) {
	for _, tc := range []struct {
		in    string
		reads []string // Read paths that must be there
		stays bool     // the use must stay unknown (a dynamic read or an opaque)
	}{
		{`for f in src/*.go; do wc -l < "$f"; done`, []string{"src/*.go"}, false},
		{`for f in a.txt b.txt; do cat "$f"; done`, []string{"a.txt", "b.txt"}, false},
		{`for f in a.txt; do cat "${f}"; done`, []string{"a.txt"}, false},
		{`for f in ~/.ssh/id_rsa; do cat "$f"; done`, []string{"~/.ssh/id_rsa"}, false},
		{`for f in a.txt; do f=/etc/shadow; cat "$f"; done`, nil, true},
		{`for f in a.txt; do read f; cat "$f"; done`, nil, true},
		{`for f in $(ls); do cat "$f"; done`, nil, true},
		{`cat "$f"; for f in a.txt; do :; done`, nil, true},
		{`for f in a.txt; do cat $f; done`, nil, true},
		{`for f in a.txt; do :; done; for f in $x; do cat "$f"; done`, nil, true},
	} {
		effs := Analyze(tc.in, testOpts)
		for _, r := range tc.reads {
			if !readsPath(effs, r) {
				t.Errorf("Analyze(%q) does not read %s: %q", tc.in, r, briefs(effs))
			}
		}
		unknown := hasKind(effs, Opaque)
		for _, e := range effs {
			if e.Kind == Read && e.Dynamic && strings.ContainsAny(e.Path, "$`") {
				unknown = true
			}
		}
		if unknown != tc.stays {
			t.Errorf("Analyze(%q) unknown = %v, want %v: %q", tc.in, unknown, tc.stays, briefs(effs))
		}
	}
}
