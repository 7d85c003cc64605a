package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Pending runs Recover, then returns the valid pending requests sorted by
// id (oldest first), each read once with reader hygiene. Every bad file
// is moved to quarantine/ and reported as a Problem; it never stops the
// other requests from being listed.
func (q *Queue) Pending() ([]*Request, []Problem) {
	problems := q.recoverClaimed()
	reqs, more := q.scan(StatePending)
	return q.expire(reqs), append(problems, more...)
}

// scan reads every file of a request directory.
func (q *Queue) scan(s State) ([]*Request, []Problem) {
	dir := filepath.Dir(q.path(s, "x"))
	names, err := readNames(dir)
	if err != nil {
		return nil, []Problem{{State: s, Name: ".", Err: err}}
	}
	var reqs []*Request
	var problems []Problem
	if limit := q.scanLimit(); s != StateDone && len(names) > limit {
		problems = append(problems, Problem{State: s, Name: ".",
			Err: fmt.Errorf("%d files; only the first %d were read", len(names), limit)})
		names = names[:limit]
	}
	for _, name := range names {
		r, err := q.readNamed(s, name)
		switch {
		case err == nil:
			reqs = append(reqs, r)
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, errSkip):
		default:
			problems = append(problems, q.problem(s, filepath.Join(dir, name), err))
		}
	}
	slices.SortFunc(reqs, func(a, b *Request) int { return strings.Compare(a.ID, b.ID) })
	return reqs, problems
}

// scanLimit bounds how many files one look at pending/ or claimed/ reads,
// however many files were planted there.
func (q *Queue) scanLimit() int { return max(4*q.maxPending, 64) }

// errSkip marks names that belong in the directory but are not requests.
var errSkip = errors.New("skip")

func (q *Queue) readNamed(s State, name string) (*Request, error) {
	id := idFromName(name)
	if id == "" {
		if s == StateClaimed && isGateName(name) {
			return nil, errSkip
		}
		return nil, badFile("not a request file name")
	}
	return q.readRequest(s, id)
}

// readRequest reads s/ID.json with reader hygiene.
func (q *Queue) readRequest(s State, id string) (*Request, error) {
	raw, err := readChecked(q.path(s, id))
	if err != nil {
		return nil, err
	}
	return parseRequest(raw, id+".json")
}

// Load returns request id and its state, for showing it: the request is
// nil when it is done (use Result). Nothing is quarantined.
func (q *Queue) Load(id string) (*Request, State, error) {
	if !ValidID(id) {
		return nil, "", invalid("id", "must match ^[a-z0-9-]{1,64}$")
	}
	for _, s := range []State{StatePending, StateClaimed} {
		r, err := q.readRequest(s, id)
		if err == nil {
			return r, s, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, s, fmt.Errorf("load %s: %w", id, err)
		}
	}
	if _, err := os.Lstat(q.path(StateDone, id)); err == nil {
		return nil, StateDone, nil
	}
	return nil, "", fmt.Errorf("load %s: %w", id, ErrNotFound)
}

func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	slices.Sort(names)
	return names, nil
}

// isGateName matches ID.gate in claimed/.
func isGateName(name string) bool {
	id, ok := strings.CutSuffix(name, ".gate")
	return ok && ValidID(id)
}

// age is how long ago t was by the queue's clock.
func (q *Queue) age(t time.Time) time.Duration { return q.now().Sub(t) }

// Ended lists the requests whose result was written at or after since
// (by the result file's modification time), oldest id first: what a
// process that mirrors the folder elsewhere (team mode's relay) missed
// while it was away.
func (q *Queue) Ended(since time.Time) ([]string, error) {
	dir := q.f.Done()
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, name := range names {
		id := idFromName(name)
		if id == "" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
			continue
		}
		ids = append(ids, id)
	}
	return ids, nil
}
