package inbox

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// "Always, for all agents" stores the same decision in MAIN's folder and
// every agent's, each signed for its folder and audited there.
func TestRememberAll(t *testing.T) {
	main, st := testenv.Project(t)
	var targets []Target
	folders := []folder.Folder{main}
	for _, n := range []string{"alice", "bob"} {
		f := testenv.Folder(t, mkdir(t, main.Worktrees(), n))
		folders = append(folders, f)
	}
	for _, f := range folders {
		lg, err := audit.Open(f, st)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lg.Close() })
		targets = append(targets, Target{Folder: f, Audit: lg})
	}
	rule := policy.Remembered{Trigger: policy.Shell, Tier: policy.Allow, Pattern: "npm ci", By: "me@host"}
	err := RememberAll(targets, st, Shared{Rules: []policy.Remembered{rule}, From: Tag{Agent: "alice"},
		RequestID: "r1", Hash: "h", Actor: "approver:watch", User: "me@host"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range folders {
		got, warns := store.LoadRemembered(f, st)
		if len(warns) != 0 || len(got) != 1 || got[0].Pattern != "npm ci" || got[0].Trigger != policy.Shell {
			t.Errorf("%s: remembered %+v, warnings %v", f.Root, got, warns)
		}
		var events []string
		err := audit.Read(context.Background(), f, st, 0, func(r audit.Record) error {
			events = append(events, r.Event)
			return nil
		})
		if err != nil || len(events) != 1 || events[0] != "remembered.shared" {
			t.Errorf("%s: audit %v, %v", f.Root, events, err)
		}
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	dir := filepath.Join(parts...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Follow sends the members again only when they changed.
func TestFollow(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	src := func(*slog.Logger) ([]Member, error) {
		switch n.Add(1) {
		case 1, 2, 3:
			return []Member{{Tag: Tag{Agent: MainName}}}, nil
		default:
			return []Member{{Tag: Tag{Agent: MainName}}, {Tag: Tag{Agent: "alice", State: "running"}}}, nil
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, updates, err := Follow(ctx, src, time.Millisecond, slog.New(slog.DiscardHandler))
	if err != nil || len(first) != 1 {
		t.Fatalf("first %v, %v", first, err)
	}
	got := <-updates
	if len(got) != 2 || got[1].Tag.Agent != "alice" {
		t.Fatalf("update %+v", got)
	}
	select {
	case more := <-updates:
		t.Fatalf("sent again without a change: %+v", more)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	for range updates {
	}
}
