package shims

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// A jailed shim may write only escalations/tmp/ and pending/, so it
// cannot withdraw its own request (that is a claim, a rename into
// claimed/, and a result in done/). It asks the supervisor instead: it
// creates the empty file tmp/ID.withdraw, and the supervisor, outside
// the jail, withdraws ID if it is still pending and was made by a shim of
// its own run (same session). The marker says nothing but its name; a
// forged one can at most withdraw a pending request of the same run.
const markerExt = ".withdraw"

// A shim killed outright (SIGKILL) cannot ask. So it also holds a lock on
// tmp/ID.alive while it waits; the supervisor withdraws a pending request
// of its run whose liveness file is there but unlocked.
const aliveExt = ".alive"

// aliveCheck is how often the supervisor looks for dead shims (a death
// makes no file event).
const aliveCheck = 2 * time.Second

func alivePath(f folder.Folder, id string) string { return filepath.Join(f.Tmp(), id+aliveExt) }

// markerWait bounds how long a shim waits for the supervisor to act on
// its withdraw marker.
const markerWait = 3 * time.Second

// withdraw withdraws id if it is still pending: directly when this
// process may write the queue, else through the supervisor. It returns
// the request's result when it has one by then.
func withdraw(q *queue.Queue, id, reason string) (*queue.Result, error) {
	if os.Getenv(EnvJail) != "1" {
		err := q.Withdraw(id, reason)
		res, _ := q.Result(id)
		if err != nil && res != nil {
			err = nil // decided or running by another approver: res says how
		}
		return res, err
	}
	marker := filepath.Join(q.Folder().Tmp(), id+markerExt)
	f, err := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ask the supervisor to withdraw: %w", err)
	}
	f.Close()
	deadline := time.Now().Add(markerWait)
	for time.Now().Before(deadline) {
		if res, err := q.Result(id); err == nil {
			return res, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, errors.New("the supervisor did not act on the withdrawal in time (it stays pending for a human)")
}

// ServeWithdrawals runs in the `sandbox run` supervisor, outside the jail,
// until ctx ends: it withdraws the requests whose shims asked for it (see
// markerExt), if they are still pending, came from a shim and carry
// session.
func ServeWithdrawals(ctx context.Context, q *queue.Queue, session string, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	changed := approver.Notify(ctx, q.Folder().Tmp(), approver.DefaultPoll, log)
	tick := time.NewTicker(aliveCheck)
	defer tick.Stop()
	for {
		withdrawMarked(q, session, log)
		select {
		case <-ctx.Done():
			for range changed { // the notifier releases its watch first: queue.ReleaseWatcher
			}
			return
		case <-tick.C:
		case _, ok := <-changed:
			if !ok {
				return
			}
		}
	}
}

// withdrawMarked handles every withdraw marker in tmp/.
func withdrawMarked(q *queue.Queue, session string, log *slog.Logger) {
	d, err := os.Open(q.TmpDir())
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(4096)
	d.Close()
	for _, name := range names {
		path := filepath.Join(q.TmpDir(), name)
		if id, ok := strings.CutSuffix(name, markerExt); ok {
			handleMarker(q, session, id, path, "the shim was interrupted before anyone decided", log)
		} else if id, ok := strings.CutSuffix(name, aliveExt); ok && aliveGone(path) {
			handleMarker(q, session, id, path, "the shim was killed before anyone decided", log)
		}
	}
}

// handleMarker withdraws id if it is a pending shim request of session,
// then removes the file at path; another run's file is left alone.
func handleMarker(q *queue.Queue, session, id, path, reason string, log *slog.Logger) {
	if !queue.ValidID(id) {
		os.Remove(path)
		return
	}
	req, state, err := q.Load(id)
	if err == nil && state == queue.StatePending && (req.Source != queue.SourceShim || req.Session != session) {
		return // another run's, or not a shim's: not ours to withdraw
	}
	if err == nil && state == queue.StatePending {
		err = q.Withdraw(id, reason)
		log.Info("withdrew a shim's request", "id", id, "why", reason, "err", err)
	}
	os.Remove(path)
}
