package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// A Claim is one approver's exclusive hold on a request, taken by Claim.
// It holds the request exactly as read once at claim time: the approver
// shows Request (escaped) with Hash, and the broker executes Request,
// never the file again. The claiming process holds a kernel lock on the
// claimed file until Complete or Release; if it dies, Recover turns the
// request into `interrupted`.
type Claim struct {
	Request *Request // parsed and validated from Raw
	Raw     []byte   // the file's bytes as read at claim time
	Hash    string   // Request.Hash, recomputed from the content

	q  *Queue
	id string

	mu sync.Mutex
	// f is the open, locked claimed file; nil once completed or released.
	f       *os.File
	started bool // Begin succeeded: execution may have started
}

// Claim takes request id for this approver: it locks pending/ID.json and
// renames it into claimed/, so exactly one caller wins; the others get
// ErrAlreadyClaimed. The file is then read once into memory and
// validated; a bad file is quarantined (ErrBadFile). Use ClaimShown when
// a human decided on a copy read earlier.
func (q *Queue) Claim(id string) (*Claim, error) {
	if !ValidID(id) {
		return nil, invalid("id", "must match ^[a-z0-9-]{1,64}$")
	}
	pending, claimed := q.path(StatePending, id), q.path(StateClaimed, id)
	f, err := openChecked(pending)
	if err != nil {
		return nil, q.claimOpenError(id, pending, err)
	}
	c := &Claim{q: q, id: id, f: f}
	if err := c.take(pending, claimed); err != nil {
		f.Close()
		return nil, err
	}
	if err := c.load(); err != nil {
		q.quarantine(claimed, err)
		f.Close()
		return nil, fmt.Errorf("claim %s: %w", id, err)
	}
	return c, nil
}

// ClaimShown claims id only if its content hash is still hash, the one
// shown to the human. A request changed since it was shown is tampering:
// it is quarantined and ErrBadFile returned.
func (q *Queue) ClaimShown(id, hash string) (*Claim, error) {
	c, err := q.Claim(id)
	if err != nil {
		return nil, err
	}
	if c.Hash != hash {
		path := q.path(StateClaimed, id)
		err := badFile("content changed after it was shown (hash %.12s, shown %.12s)", c.Hash, hash)
		q.quarantine(path, err)
		c.close()
		return nil, fmt.Errorf("claim %s: %w", id, err)
	}
	return c, nil
}

func (q *Queue) claimOpenError(id, pending string, err error) error {
	if errors.Is(err, ErrBadFile) {
		q.quarantine(pending, err)
		return fmt.Errorf("claim %s: %w", id, err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("claim %s: %w", id, err)
	}
	for _, s := range []State{StateClaimed, StateDone} {
		if _, err := os.Lstat(q.path(s, id)); err == nil {
			return fmt.Errorf("claim %s: %s: %w", id, s, ErrAlreadyClaimed)
		}
	}
	return fmt.Errorf("claim %s: %w", id, ErrNotFound)
}

// take locks the opened pending file and renames it into claimed/. The
// lock is taken before the rename, so a claimed file is never unlocked
// while its approver lives.
func (c *Claim) take(pending, claimed string) error {
	ok, err := tryLock(c.f)
	if err != nil {
		return fmt.Errorf("claim %s: lock: %w", c.id, err)
	}
	if !ok {
		return fmt.Errorf("claim %s: %w", c.id, ErrAlreadyClaimed)
	}
	if err := os.Rename(pending, claimed); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("claim %s: %w", c.id, ErrAlreadyClaimed)
		}
		return fmt.Errorf("claim %s: %w", c.id, err)
	}
	now, err := os.Lstat(claimed)
	held, herr := c.f.Stat()
	if err != nil || herr != nil || !os.SameFile(now, held) {
		// Someone swapped pending/ID.json between our open and rename.
		c.q.quarantine(claimed, badFile("replaced while being claimed"))
		return fmt.Errorf("claim %s: %w", c.id, badFile("replaced while being claimed"))
	}
	return nil
}

// load reads the claimed file once, from the locked descriptor.
func (c *Claim) load() error {
	raw, err := readCapped(c.f)
	if err != nil {
		return err
	}
	r, err := parseRequest(raw, c.id+".json")
	if err != nil {
		return err
	}
	c.Request, c.Raw, c.Hash = r, raw, r.ComputeHash()
	return nil
}

// ID is the claimed request's id.
func (c *Claim) ID() string { return c.id }

// close unlocks and closes the claimed file.
func (c *Claim) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		unlock(c.f)
		c.f.Close()
		c.f = nil
	}
}
