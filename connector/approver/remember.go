package approver

import (
	"context"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Memory is the store of remembered decisions ("always allow `git push
// origin *` in this folder"), signed with the per-user key; the policy
// engine provides it.
type Memory interface {
	// Propose returns the narrowest pattern covering req, for the human
	// to accept or edit.
	Propose(req *queue.Request) (string, error)
	// Check reports whether pattern is one that Remember would store for
	// req (it must cover req).
	Check(req *queue.Request, pattern string) error
	// Remember stores a signed "allow" for pattern, decided by who. The
	// pattern must cover req.
	Remember(req *queue.Request, pattern string, who Identity) error
	// Match returns the remembered decision covering req, if any.
	Match(req *queue.Request) (Remembered, bool)
}

// Remembered is one stored decision that covers a request.
type Remembered struct {
	Allow   bool
	Pattern string
}

// Decide decides req by itself when a remembered decision covers it: a
// remembered allow is approved and run, a remembered deny is denied, both
// with Surface "remembered". decided is false when none applies (or the
// request is gone). The request must still have the content req was
// matched on, or nothing runs.
func (a *Approver) Decide(ctx context.Context, req *queue.Request, o ApproveOptions) (res *queue.Result, decided bool, err error) {
	if a.memory == nil {
		return nil, false, nil
	}
	m, ok := a.memory.Match(req)
	if !ok {
		return nil, false, nil
	}
	who := Identity{User: a.id.User, Surface: SurfaceRemembered}
	if !m.Allow {
		res, err = a.deny(ctx, req.ID, "denied by a remembered decision: "+m.Pattern, who, m.Pattern)
		return res, true, err
	}
	c, err := a.claim(req.ID, req.Hash)
	if err != nil {
		return nil, true, err
	}
	res, err = a.approveClaimed(ctx, c, who, ApproveOptions{OnOutput: o.OnOutput}, m.Pattern)
	return res, true, err
}

// Propose returns the narrowest pattern covering req for "approve always".
func (a *Approver) Propose(req *queue.Request) (string, error) {
	if a.memory == nil {
		return "", ErrNoMemory
	}
	return a.memory.Propose(req)
}

// Remembered returns the remembered decision covering req, if any.
func (a *Approver) Remembered(req *queue.Request) (Remembered, bool) {
	if a.memory == nil {
		return Remembered{}, false
	}
	return a.memory.Match(req)
}

// RememberAllow stores a signed allow of pattern for req's one escalated
// part, decided by this approver's human (the rule offered after repeated
// approvals); the pattern must cover req.
func (a *Approver) RememberAllow(req *queue.Request, pattern string) error {
	if a.memory == nil {
		return ErrNoMemory
	}
	return a.memory.Remember(req, pattern, a.id)
}
