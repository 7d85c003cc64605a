package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
)

// Begin marks the start of execution. Call it after the decision to
// approve and right before the broker runs the request. It creates the
// request's gate (claimed/ID.gate) exclusively; if a deny got there first
// (Deny on a request this approver had claimed), Begin completes the
// request as denied with the denier's identity and reason and returns an
// error matching ErrDenied: deny wins over an approval that has not
// started. After a successful Begin, Release is refused.
func (c *Claim) Begin() error {
	c.mu.Lock()
	if c.f == nil {
		c.mu.Unlock()
		return ErrClaimClosed
	}
	won, err := c.q.createRunGate(c.id)
	if err == nil && won {
		c.started = true
	}
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("begin %s: %w", c.id, err)
	}
	if won {
		return nil
	}
	note, _ := c.q.readGate(c.id)
	if err := c.Complete(note.result()); err != nil {
		return err
	}
	return fmt.Errorf("begin %s: %w by %s", c.id, ErrDenied, note.By.User)
}

// Complete writes the result to done/ID.json (tmp + fsync + rename), then
// removes the claimed file and its gate and releases the claim. It fills
// in ID, RequestHash, Version, Kind, Summary, Session and Requested from
// the claimed request, and Decided when zero.
func (c *Claim) Complete(res *Result) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return ErrClaimClosed
	}
	if res.Decision == Approved && !c.started {
		return fmt.Errorf("complete %s: %s without Begin: %w", c.id, res.Decision, ErrInvalid)
	}
	c.fill(res)
	if err := res.Validate(); err != nil {
		return fmt.Errorf("complete %s: %w", c.id, err)
	}
	if err := c.q.writeResult(res); err != nil {
		return err
	}
	os.Remove(c.q.path(StateClaimed, c.id))
	os.Remove(c.q.gatePath(c.id))
	unlock(c.f)
	c.f.Close()
	c.f = nil
	return nil
}

func (c *Claim) fill(res *Result) {
	res.Reason = cleanText(res.Reason, MaxJustification)
	res.Signal = cleanText(res.Signal, MaxName)
	if len(res.Stdout) > DefaultOutputCap {
		res.Stdout, res.StdoutTruncated = CapOutput([]byte(res.Stdout), DefaultOutputCap)
	}
	if len(res.Stderr) > DefaultOutputCap {
		res.Stderr, res.StderrTruncated = CapOutput([]byte(res.Stderr), DefaultOutputCap)
	}
	r := c.Request
	res.Version, res.ID, res.RequestHash = Version, c.id, c.Hash
	res.Kind, res.Summary, res.Session, res.Requested = r.Kind, Summarize(r), r.Session, r.Created
	if res.Decided.IsZero() {
		res.Decided = c.q.now().UTC()
	}
}

// writeResult stages done/ID.json in staging/ (never tmp/, which the jail
// can write) and renames it into done/.
func (q *Queue) writeResult(res *Result) error {
	if err := q.sign(res); err != nil {
		return fmt.Errorf("result %s: %w", res.ID, err)
	}
	data, err := encode(res)
	if err != nil {
		return err
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("result %s: %d bytes: %w", res.ID, len(data), ErrInvalid)
	}
	if err := atomicfile.WriteFileVia(q.f.Staging(), q.path(StateDone, res.ID), data, 0o600); err != nil {
		return fmt.Errorf("result %s: %w", res.ID, err)
	}
	return nil
}

// Release gives the request back (the human skipped it): claimed/ID.json
// is renamed back into pending/. A deny that arrived meanwhile wins: the
// request is then completed as denied instead. Refused after Begin.
func (c *Claim) Release() error {
	c.mu.Lock()
	if c.f == nil {
		c.mu.Unlock()
		return ErrClaimClosed
	}
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("release %s: %w", c.id, ErrAlreadyRunning)
	}
	gate := c.q.gatePath(c.id)
	if _, err := os.Lstat(gate); err == nil {
		c.mu.Unlock()
		note, _ := c.q.readGate(c.id)
		return c.Complete(note.result())
	}
	err := os.Rename(c.q.path(StateClaimed, c.id), c.q.path(StatePending, c.id))
	unlock(c.f)
	c.f.Close()
	c.f = nil
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("release %s: %w", c.id, err)
	}
	return nil
}

// gatePath is claimed/ID.gate, created once by whoever decides first
// between an approval starting and a late deny.
func (q *Queue) gatePath(id string) string {
	return filepath.Join(q.f.Claimed(), id+".gate")
}

const gateRun = "run\n"

// createGate publishes content as id's gate atomically and exclusively:
// it is written to a file in staging/ and hard-linked into place, which fails
// if the gate exists. won is false when someone else created it first.
func (q *Queue) createGate(id string, content []byte) (won bool, err error) {
	path := q.gatePath(id)
	tmp := filepath.Join(q.f.Staging(), id+".gate-"+NewID())
	if err := writeNew(tmp, content); err != nil {
		return false, fmt.Errorf("gate: %w", err)
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("gate: %w", err)
	}
	return true, nil
}

// createRunGate creates id's gate exclusively with content "run". Unlike a
// deny note it may be seen empty for a moment: any gate that is not a
// complete deny note means "running".
func (q *Queue) createRunGate(id string) (won bool, err error) {
	f, err := os.OpenFile(q.gatePath(id), os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("gate: %w", err)
	}
	_, err = f.WriteString(gateRun)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return true, err
}

// writeNew creates path exclusively (0600, never through a link) with
// content.
func writeNew(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
