package hook_test

import (
	"slices"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

func TestReadTargets(t *testing.T) {
	tests := []struct {
		name     string
		paths    []string
		patterns []string
		want     []string
	}{
		{"no path reads cwd", nil, []string{"**/*.go"}, []string{"/proj"}},
		{"path", []string{"/proj/src"}, nil, []string{"/proj/src"}},
		{"absolute pattern", nil, []string{"/etc/**/*.conf"}, []string{"/proj", "/etc"}},
		{"climbing pattern", []string{"/proj/src"}, []string{"../../home/*/.ssh/*"}, []string{"/proj/src", "/home"}},
		{"climb after a glob", nil, []string{"*/../../../etc/passwd"}, []string{"/proj", "/"}},
		{"home", nil, []string{"~/.aws/*"}, []string{"/proj", "/"}},
		{"inner pattern stays", nil, []string{"src/**/x.go"}, []string{"/proj"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			p := func(tr policy.Trigger, s string) policy.Tier {
				got = append(got, s)
				return policy.Allow
			}
			f := newFixture(p, nil)
			f.core.Classify(&hook.Call{Tool: "Glob", Action: hook.Read, Cwd: "/proj", Paths: tc.paths, Patterns: tc.patterns})
			if !slices.Equal(got, tc.want) {
				t.Errorf("read targets %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStrictestPartWins(t *testing.T) {
	p := func(tr policy.Trigger, s string) policy.Tier {
		if s == "/etc" {
			return policy.Escalate
		}
		return policy.Allow
	}
	f := newFixture(p, nil)
	d := f.core.Classify(&hook.Call{Tool: "Glob", Action: hook.Read, Cwd: "/proj", Patterns: []string{"/etc/*"}})
	if d.Decision != policy.Escalate || len(d.Parts) != 2 {
		t.Errorf("decision %v with %d parts", d.Decision, len(d.Parts))
	}
}
