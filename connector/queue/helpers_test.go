package queue

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// testQueue opens a queue in a fresh folder.
func testQueue(t testing.TB, opts ...Option) *Queue {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	return openIn(t, t.TempDir(), opts...)
}

func openIn(t testing.TB, root string, opts ...Option) *Queue {
	t.Helper()
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Open(f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func shellReq(script, session string) *Request {
	return &Request{
		Kind:    KindShell,
		Shell:   &ShellPayload{Shell: "bash", Script: script},
		Cwd:     "/tmp",
		Source:  SourceCLI,
		Agent:   "test",
		Session: session,
	}
}

func submit(t testing.TB, q *Queue, r *Request) string {
	t.Helper()
	id, _, err := q.Submit(context.Background(), r)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return id
}

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func approve(t testing.TB, c *Claim, out string) {
	t.Helper()
	if err := c.Begin(); err != nil {
		t.Fatalf("begin: %v", err)
	}
	code := 0
	err := c.Complete(&Result{Decision: Approved, Approver: Approver{User: "t@h", Surface: "ci"},
		ExitCode: &code, Stdout: out})
	if err != nil {
		t.Fatalf("complete: %v", err)
	}
}

func names(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func writeRaw(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
