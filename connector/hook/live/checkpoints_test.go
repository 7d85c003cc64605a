package live

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The hook outside the jail keeps checkpoints in the per-user state,
// never in the project (where a jailed command could reach them); a call
// that writes nothing opens no store; inside the jail no checkpoint is
// promised or kept.
func TestCheckpointsLiveInThePerUserState(t *testing.T) {
	t.Parallel()
	dir, st := project(t)
	core, err := Open(context.Background(), dir, Options{Agent: "claude", Classify: true, State: st})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	if core.Checkpoints == nil {
		t.Fatal("no checkpoints outside the jail")
	}
	store, err := StoreFor(st, dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(store.Dir(), st.Dir+string(filepath.Separator)) || strings.HasPrefix(store.Dir(), dir) {
		t.Errorf("store at %s (state %s, project %s)", store.Dir(), st.Dir, dir)
	}
	if _, err := core.PreToolUse(context.Background(), gitStatus(dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(store.Dir()); !os.IsNotExist(err) {
		t.Errorf("a call that writes nothing opened the store: %v", err)
	}
	if _, err := core.Checkpoints.Take(checkpointReq(dir)); err != nil {
		t.Fatal(err)
	}
	if list, _, err := store.List(""); err != nil || len(list) != 1 {
		t.Errorf("checkpoints %v %v", list, err)
	}

	f, _ := testenv.Project(t)
	inside, err := openInside(f, Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if inside.Checkpoints != nil || strings.Contains(inside.Brief(hook.BriefOptions{}), "restore --checkpoint") {
		t.Error("the hook inside the jail promises checkpoints")
	}
}

func checkpointReq(dir string) checkpoint.Request {
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	return checkpoint.Request{Paths: []string{filepath.Join(dir, "notes.txt")}, Command: "rm notes.txt"}
}
