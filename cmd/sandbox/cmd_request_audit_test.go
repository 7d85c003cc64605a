package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// auditRecords reads root's audit log, authenticated with the user's key.
func auditRecords(t *testing.T, root string) []audit.Record {
	t.Helper()
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	st := projectState(t, root)
	var recs []audit.Record
	err = audit.Read(context.Background(), f, st, 0, func(r audit.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// sandbox request records its side: request.created by "cli" with the
// request's id and content hash, before anyone can decide it.
func TestRequestAudited(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	r := startRequest(t, root, "audited", "", "--script", "echo hi")
	var created *audit.Record
	for _, rec := range auditRecords(t, root) {
		if rec.Actor == "cli" && rec.Event == "request.created" && rec.RequestID == r.id {
			created = &rec
		}
	}
	ls := list(t, root)
	if created == nil || len(ls) != 1 || created.ContentHash != ls[0].Hash || !created.Authentic ||
		created.Decision != "escalate" {
		t.Fatalf("request.created record = %+v; listed %+v", created, ls)
	}
	if code, _, errs := run(t, root, "deny", r.id); code != 0 {
		t.Fatalf("deny: %d %s", code, errs)
	}
	r.wait()
}

// Without an audit log that can be written, sandbox request refuses to
// submit: nothing is left for a human to approve.
func TestRequestRefusedWithoutAudit(t *testing.T) {
	t.Parallel()
	t.Run("log cannot be opened", func(t *testing.T) {
		root := project(t, false)
		testenv.MakeReadOnly(t, auditDir(t, root))
		requestRefused(t, root)
	})
	t.Run("append fails", func(t *testing.T) {
		root := project(t, false)
		r := startRequest(t, root, "first", "", "--script", "true") // the log now exists
		run(t, root, "deny", r.id)
		r.wait()
		testenv.MakePathsReadOnly(t, filepath.Join(auditDir(t, root), audit.LiveFile))
		requestRefused(t, root)
	})
}

func requestRefused(t *testing.T, root string) {
	t.Helper()
	code, _, errs := run(t, root, "request", "--wait", "5s", "--script", "echo x >> ran.txt")
	if code == 0 || !strings.Contains(errs, "audit") || !strings.Contains(errs, "not submitted") {
		t.Fatalf("request without audit: exit %d, %s", code, errs)
	}
	f, _ := folder.New(root)
	q, err := queue.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if reqs, _ := q.Pending(); len(reqs) != 0 {
		t.Fatalf("%d requests left pending", len(reqs))
	}
}

// auditDir is root's audit dir in the user's state.
func auditDir(t *testing.T, root string) string {
	t.Helper()
	dir, err := audit.Dir(folder.Folder{Root: root}, projectState(t, root))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
