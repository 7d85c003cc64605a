package natsconn

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// DefaultRequestTimeout bounds a request whose context has no deadline
// (a JetStream API call a cluster without a leader never answers).
const DefaultRequestTimeout = 10 * time.Second

// Request publishes data to subject with a reply subject of this
// connection's inbox and waits for the first reply (ErrNoReply when the
// server says nobody listens).
func (c *Conn) Request(ctx context.Context, subject string, hdr Header, data []byte) (*Msg, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
		defer cancel()
	}
	ch := make(chan *Msg, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.reqN++
	token := strconv.FormatUint(c.reqN, 36)
	c.waiting[token] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, token)
		c.mu.Unlock()
	}()
	if err := c.Publish(subject, c.inbox+token, hdr, data); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Status == 503 {
			return nil, fmt.Errorf("%w on %s", ErrNoReply, subject)
		}
		return m, nil
	case <-c.done:
		return nil, c.Err()
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %s: %w", ErrTimeout, subject, ctx.Err())
	}
}

// NewInbox is a subject no other connection receives on: for a
// subscription that gathers several replies (a consumer's batch).
func (c *Conn) NewInbox() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqN++
	return c.inbox[:len(c.inbox)-1] + "-" + strconv.FormatUint(c.reqN, 36)
}

// deliverReply hands a reply on the inbox to its request.
func (c *Conn) deliverReply(m *Msg) {
	token := m.Subject[len(c.inbox):]
	c.mu.Lock()
	ch := c.waiting[token]
	c.mu.Unlock()
	if ch != nil {
		select {
		case ch <- m:
		default: // a second reply: the first is the answer
		}
	}
}
