package textdiff

import "testing"

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"change", "a\nb\nc\n", "a\nB\nc\n", "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"add to empty", "", "a\n", "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n"},
		{"remove all", "a\n", "", "--- x\n+++ y\n@@ -1 +0,0 @@\n-a\n"},
		{"no newline", "a\n", "a", "--- x\n+++ y\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
			"--- x\n+++ y\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n"},
		{"insert middle", "a\nc\n", "a\nb\nc\n", "--- x\n+++ y\n@@ -1,2 +1,3 @@\n a\n+b\n c\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := UnifiedDiff("x", "y", []byte(tc.a), []byte(tc.b)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
