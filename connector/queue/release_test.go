package queue

import (
	"errors"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// TestReleaseWatcher: the watches are gone at once and the watcher is
// closed soon after.
func TestReleaseWatcher(t *testing.T) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		testenv.Skip(t, "no file notification here: "+err.Error())
	}
	for _, d := range []string{t.TempDir(), t.TempDir()} {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	ReleaseWatcher(w)
	if l := w.WatchList(); len(l) != 0 {
		t.Fatalf("still watching %v", l)
	}
	for i := 0; ; i++ {
		err := w.Add(t.TempDir())
		if errors.Is(err, fsnotify.ErrClosed) {
			return
		}
		if i == 500 {
			t.Fatalf("not closed after 10 s (Add: %v)", err)
		}
		if err == nil {
			_ = w.Remove(w.WatchList()[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
