package approver

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// testFolder is a project with a .sandbox/ bus and per-user state, both in
// temporary directories.
type testFolder struct {
	f  folder.Folder
	st *userstate.State
	q  *queue.Queue
}

func newTestFolder(t testing.TB) *testFolder {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	return openTestFolder(t, t.TempDir())
}

// openTestFolder opens (creating its bus) the project at root with the
// per-user state of $XDG_STATE_HOME.
func openTestFolder(t testing.TB, root string) *testFolder {
	t.Helper()
	f := testenv.Folder(t, root)
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return &testFolder{f: f, st: st, q: q}
}

// approver returns a new Approver on the folder with its own audit log
// handle, deciding as surface.
func (tf *testFolder) approver(t testing.TB, surface string, mem Memory) *Approver {
	t.Helper()
	lg, err := audit.Open(tf.f, tf.st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	a, err := New(Options{
		Queue: tf.q, Audit: lg, Memory: mem, Identity: Identity{User: "tester@test", Surface: surface},
		Timeout: time.Minute, Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// script submits a bash script run in the project root.
func (tf *testFolder) script(t testing.TB, script string) *queue.Request {
	t.Helper()
	return tf.submit(t, &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script}})
}

// submit fills the writer's fields of req and queues it.
func (tf *testFolder) submit(t testing.TB, req *queue.Request) *queue.Request {
	t.Helper()
	if req.Cwd == "" {
		req.Cwd = tf.f.Root
	}
	if req.Source == "" {
		req.Source = queue.SourceCLI
	}
	req.Session = "s-" + queue.NewID()
	if _, _, err := tf.q.Submit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return req
}

// lines returns the lines of a file in the project (none when missing).
func (tf *testFolder) lines(t testing.TB, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tf.f.Root, name))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// verifyAudit checks the folder's audit chain and returns its records.
func (tf *testFolder) verifyAudit(t testing.TB) []audit.Record {
	t.Helper()
	rep, err := audit.Verify(tf.f, tf.st)
	if err != nil {
		t.Fatalf("audit verify: %v", err)
	}
	if !rep.OK {
		t.Fatalf("audit verify: %+v", rep)
	}
	var recs []audit.Record
	err = audit.Read(context.Background(), tf.f, tf.st, 0, func(r audit.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// events lists the audit events about request id.
func events(recs []audit.Record, id string) []string {
	var out []string
	for _, r := range recs {
		if r.RequestID == id {
			out = append(out, r.Event+":"+r.Decision)
		}
	}
	return out
}
