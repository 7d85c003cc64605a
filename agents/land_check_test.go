package agents

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestRunnerWithoutWorktree: a worktree deleted behind land's back
// fails the test run with the reason; it never counts as passed.
func TestTestRunnerWithoutWorktree(t *testing.T) {
	t.Parallel()
	run := TestRunner(t.TempDir())
	res := run(context.Background(), filepath.Join(t.TempDir(), "gone"), "true")
	if res.Passed || res.Err == "" || res.Command != "true" {
		t.Fatalf("result %+v", res)
	}
}

// TestTailBuffer keeps the last bytes written.
func TestTailBuffer(t *testing.T) {
	t.Parallel()
	b := &tailBuffer{keep: 10}
	for _, s := range []string{"0123456789", "abc", strings.Repeat("x", 3)} {
		b.Write([]byte(s))
	}
	if got := b.String(); got != "3456789abcxxx"[3:] {
		t.Fatalf("tail = %q", got)
	}
}
