// Package hooktest has in-memory stand-ins for the hook core's
// dependencies (policy, queue, audit, originals), for adapter tests that
// exercise wire formats without a folder bus.
package hooktest

import (
	"context"
	"fmt"
	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Policy decides every trigger with one function.
type Policy func(t policy.Trigger, subject string) policy.Tier

func (p Policy) decide(t policy.Trigger, subject string) policy.Decision {
	tier := p(t, subject)
	return policy.Decision{Decision: tier, Reasons: []string{fmt.Sprintf("%s %s: %s by test", t, subject, tier)},
		Parts: []policy.Part{{Trigger: t, Subject: subject, Decision: tier, Rule: "test"}}}
}

func (p Policy) Shell(script, _ string) policy.Decision { return p.decide(policy.Shell, script) }
func (p Policy) Write(path, _ string) policy.Decision   { return p.decide(policy.Write, path) }
func (p Policy) Read(path, _ string) policy.Decision    { return p.decide(policy.Read, path) }
func (p Policy) NetworkURL(u string) policy.Decision    { return p.decide(policy.Network, u) }
func (p Policy) WebSearch(query string) policy.Decision {
	return p.decide(policy.Network, "websearch:"+query)
}
func (p Policy) MCP(tool string) policy.Decision { return p.decide(policy.MCP, tool) }

var _ hook.Classifier = Policy(nil)

// Queue records submissions and answers Wait with Decide's result; a nil
// result blocks until the context ends, like a request nobody decides.
type Queue struct {
	Decide func(*queue.Request) *queue.Result
	mu     sync.Mutex
	// Submitted holds every request, in order.
	Submitted []*queue.Request
}

// Submit records req and gives it an id.
func (q *Queue) Submit(_ context.Context, req *queue.Request) (string, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	req.ID = fmt.Sprintf("req-%d", len(q.Submitted)+1)
	q.Submitted = append(q.Submitted, req)
	return req.ID, false, nil
}

// Wait answers with Decide's result for the request id.
func (q *Queue) Wait(ctx context.Context, id string) (*queue.Result, error) {
	q.mu.Lock()
	var req *queue.Request
	for _, r := range q.Submitted {
		if r.ID == id {
			req = r
		}
	}
	q.mu.Unlock()
	if req == nil {
		return nil, fmt.Errorf("no request %s", id)
	}
	if res := q.Decide(req); res != nil {
		res.ID = id
		return res, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// Audit keeps records in memory; Fail makes every append fail.
type Audit struct {
	Fail error
	mu   sync.Mutex
	// Records holds every record appended.
	Records []hook.Record
}

// Record appends r.
func (a *Audit) Record(_ context.Context, r hook.Record) error {
	if a.Fail != nil {
		return a.Fail
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Records = append(a.Records, r)
	return nil
}

// Originals records the saves asked for; Fail makes them fail.
type Originals struct {
	Fail error
	mu   sync.Mutex
	// Saved lists the paths saved.
	Saved []string
}

// Save records path.
func (o *Originals) Save(path, _, _ string) error {
	if o.Fail != nil {
		return o.Fail
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.Saved = append(o.Saved, path)
	return nil
}

// Checkpoints records the checkpoints asked for; Fail makes them fail.
type Checkpoints struct {
	Fail error
	mu   sync.Mutex
	// Taken lists the requests.
	Taken []checkpoint.Request
}

// Take records req.
func (c *Checkpoints) Take(req checkpoint.Request) (*checkpoint.Checkpoint, error) {
	if c.Fail != nil {
		return nil, c.Fail
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Taken = append(c.Taken, req)
	return &checkpoint.Checkpoint{ID: "20261201-120000-00000000", Command: req.Command}, nil
}
