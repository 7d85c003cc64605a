package policy

import "testing"

// TestLocalPrograms: a rule named ./** stands for every program given as
// a path below the working directory, and for nothing else: not a bare
// name, not a path that climbs out, starts at / or ~, and not after a cd.
func TestLocalPrograms(t *testing.T) {
	p, err := compileArgv("./** **")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		afterCD bool
		want    bool
	}{
		{"./scripts/run.sh", false, true},
		{"bin/app", false, true},
		{".venv/bin/python", false, true},
		{"./target/debug/app", false, true},
		{"./scripts/run.sh", true, false},
		{"app", false, false},
		{"../x", false, false},
		{"./a/../../x", false, false},
		{"/usr/bin/curl", false, false},
		{"~/bin/x", false, false},
		{".", false, false},
		{"./", false, false},
		{`C:\x`, false, false},
	} {
		if got := p.allowName(tc.name, tc.afterCD); got != tc.want {
			t.Errorf("allowName(%q, afterCD %v) = %v, want %v", tc.name, tc.afterCD, got, tc.want)
		}
	}
	if !p.mayName("./x") || p.mayName("x") || p.mayName("/bin/x") {
		t.Error("mayName: ./** must name every local path and nothing else")
	}
}
