package queue

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TestTrustedWritesNeverTouchTmp: the jail can write escalations/tmp/, so
// a file the trusted side stages there (a result, a deny note, the join
// index) can be opened by a jailed process as it appears and rewritten
// through that handle after the rename into done/. Every trusted write
// must stage elsewhere; this watches tmp/ while the queue decides requests
// every way it can and fails on any file created there.
func TestTrustedWritesNeverTouchTmp(t *testing.T) {
	q := testQueue(t)
	ids := make([]string, 5)
	for i := range ids {
		ids[i] = submit(t, q, shellReq("echo "+string(rune('a'+i)), "s"))
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(q.f.Tmp()); err != nil {
		t.Fatal(err)
	}
	who := Approver{User: "t@h", Surface: "cli"}

	c, err := q.Claim(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	approve(t, c, "ran")
	if err := q.Deny(ids[1], who, "no"); err != nil { // pending
		t.Fatal(err)
	}
	c2, err := q.Claim(ids[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Deny(ids[2], who, "late"); err != nil { // claimed: a deny note
		t.Fatal(err)
	}
	if err := c2.Release(); err != nil {
		t.Fatal(err)
	}
	if err := q.Withdraw(ids[3], "gone"); err != nil {
		t.Fatal(err)
	}
	q.Recover()

	sentinel := filepath.Join(q.f.Tmp(), "sentinel")
	if err := os.WriteFile(sentinel, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-w.Events:
			if ev.Name == sentinel {
				return
			}
			if ev.Has(fsnotify.Create) {
				t.Errorf("the trusted side created %s in the jail-writable tmp/", ev.Name)
			}
		case err := <-w.Errors:
			t.Fatal(err)
		case <-timeout:
			t.Fatal("no event for the sentinel")
		}
	}
}

// TestTrustedFilesArePrivate: results and the staging and quarantine
// directories are not readable by other users (results carry command
// output and approved reads).
func TestTrustedFilesArePrivate(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("echo secret", "s"))
	c, err := q.Claim(id)
	if err != nil {
		t.Fatal(err)
	}
	approve(t, c, "secret")
	for path, want := range map[string]os.FileMode{
		q.path(StateDone, id): 0o600,
		q.f.Staging():         0o700,
		q.f.Quarantine():      0o700,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
}
