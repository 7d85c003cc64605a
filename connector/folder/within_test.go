package folder

import (
	"path/filepath"
	"testing"
)

func TestWithin(t *testing.T) {
	root := filepath.FromSlash("/proj")
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{"/proj", true},
		{"/proj/src", true},
		{"/proj/src/../x", true},
		{"/proj/..foo", true},
		{"/proj-evil", false},
		{"/projx/src", false},
		{"/", false},
		{"/other/proj", false},
		{"/proj/..", false},
	} {
		t.Run(tc.p, func(t *testing.T) {
			if got := Within(root, filepath.Clean(filepath.FromSlash(tc.p))); got != tc.want {
				t.Fatalf("Within(%q, %q) = %v, want %v", root, tc.p, got, tc.want)
			}
		})
	}
}
