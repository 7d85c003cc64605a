package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
)

// Decisions lists every valid Result.Decision.
var Decisions = []Decision{Approved, Denied, Withdrawn, Expired, Interrupted, Failed}

// Surfaces through which a decision is taken (Approver.Surface). The
// queue itself decides `withdrawn` (surface "waiter"), `expired`
// ("expiry") and `interrupted` ("recovery").
var Surfaces = []string{"watch", "serve", "cli", "ci", "remembered", "waiter", "expiry", "recovery", "relay"}

// maxJailLines bounds Result.Jail (a grant names a few paths each).
const maxJailLines = 512

// Validate checks a result before it is written and after it is read.
func (r *Result) Validate() error {
	switch {
	case r.Version != Version:
		return invalid("result.v", "unsupported version %d", r.Version)
	case !ValidID(r.ID):
		return invalid("result.id", "must match ^[a-z0-9-]{1,64}$")
	case !slices.Contains(Decisions, r.Decision):
		return invalid("result.decision", "unknown decision %q", r.Decision)
	case !slices.Contains(Surfaces, r.Approver.Surface):
		return invalid("result.approver.surface", "unknown surface %q", r.Approver.Surface)
	case r.Decided.IsZero():
		return invalid("result.decided", "missing")
	}
	checks := []struct {
		field, s string
		max      int
	}{
		{"result.approver.user", r.Approver.User, MaxName},
		{"result.reason", r.Reason, MaxJustification},
		{"result.always", r.Always, MaxScript},
		{"result.signal", r.Signal, MaxName},
		{"result.log_path", r.LogPath, MaxPath},
		{"result.summary", r.Summary, 4 * SummaryLen},
		{"result.session", r.Session, MaxName},
		{"result.mac", r.MAC, 64},
	}
	for _, c := range checks {
		if err := text(c.field, c.s, c.max); err != nil {
			return err
		}
	}
	if len(r.Jail) > maxJailLines {
		return invalid("result.jail", "more than %d lines", maxJailLines)
	}
	for _, l := range r.Jail {
		if err := text("result.jail", l, MaxPath+MaxName); err != nil {
			return err
		}
	}
	if len(r.Stdout) > 4*DefaultOutputCap || len(r.Stderr) > 4*DefaultOutputCap {
		return invalid("result.stdout", "output longer than %d bytes (use CapOutput)", 4*DefaultOutputCap)
	}
	return nil
}

// Result returns the result of request id (done/ID.json), read with
// reader hygiene. ErrNotFound while the request has no result yet; a bad
// result file is quarantined and ErrBadFile returned.
func (q *Queue) Result(id string) (*Result, error) {
	if !ValidID(id) {
		return nil, invalid("id", "must match ^[a-z0-9-]{1,64}$")
	}
	res, err := q.readResult(id)
	if errors.Is(err, ErrBadFile) {
		q.quarantine(q.path(StateDone, id), err)
	}
	if errors.Is(err, ErrForged) {
		q.log.Warn("a result failed verification and was quarantined: not a decision", "id", id, "err", err)
	}
	return res, err
}

// HasResult reports whether request id has a result file (not read: Result
// reads and checks it). A cheap look for a caller that polls many ids.
func (q *Queue) HasResult(id string) bool {
	if !ValidID(id) {
		return false
	}
	_, err := os.Lstat(q.path(StateDone, id))
	return err == nil
}

// Waits reports whether request id has a pending or claimed file (not
// read: Load reads and checks it).
func (q *Queue) Waits(id string) bool {
	if !ValidID(id) {
		return false
	}
	for _, st := range []State{StatePending, StateClaimed} {
		if _, err := os.Lstat(q.path(st, id)); err == nil {
			return true
		}
	}
	return false
}

func (q *Queue) readResult(id string) (*Result, error) {
	raw, err := readChecked(q.path(StateDone, id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("result %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("result %s: %w", id, err)
	}
	var res Result
	if err := decodeStrict(raw, &res); err != nil {
		return nil, fmt.Errorf("result %s: %w", id, err)
	}
	if err := res.Validate(); err != nil {
		return nil, fmt.Errorf("result %s: %w: %w", id, ErrBadFile, err)
	}
	if res.ID != id {
		return nil, fmt.Errorf("result %s: %w", id, badFile("id %q does not match the file name", res.ID))
	}
	if err := q.verify(&res); err != nil {
		return nil, fmt.Errorf("result %s: %w", id, err)
	}
	return &res, nil
}
