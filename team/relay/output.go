package relay

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/team/natsconn"
)

// Live output: while a remotely approved command runs, the relay sends
// its output as it comes to sandbox.out.ORG.HOST.PROJECT.ID, plain NATS
// messages kept by no stream (the outcome in the results stream keeps
// the first 16 KiB): a remote approver subscribes before it decides and
// shows the command running, as a local approver does. Each message is
// one stream's bytes, numbered; the last says the output ended.
const (
	hdrStream = "Sandbox-Stream" // stdout or stderr
	hdrSeq    = "Sandbox-Seq"    // 1, 2, ...: a gap is output lost on the way
	hdrEnd    = "Sandbox-End"    // "1" on the last message, "cut" when the rest was not sent
)

const (
	outChunk    = 32 << 10 // at most this much per message
	maxLiveOut  = 1 << 20  // after this much, the rest stays on the machine
	outInterval = 20 * time.Millisecond
)

func outputSubject(org, host, project, id string) string {
	return "sandbox.out." + org + "." + host + "." + project + "." + id
}

type outChunkBuf struct {
	stream string
	data   []byte
}

// outputPublisher batches an execution's output (the broker's OnOutput
// callbacks must not wait for the network) and publishes it every
// outInterval from a goroutine of its own.
type outputPublisher struct {
	c       *natsconn.Conn
	subject string

	mu      sync.Mutex
	pending []outChunkBuf // guarded by mu
	total   int           // guarded by mu
	cut     bool          // guarded by mu
	wake    chan struct{}
	done    chan struct{}
	ended   chan struct{}
	seq     int
}

func newOutputPublisher(c *natsconn.Conn, subject string) *outputPublisher {
	p := &outputPublisher{c: c, subject: subject, wake: make(chan struct{}, 1), done: make(chan struct{}), ended: make(chan struct{})}
	go p.loop()
	return p
}

// write is the approval's OnOutput.
func (p *outputPublisher) write(stream string, b []byte) {
	p.mu.Lock()
	if room := maxLiveOut - p.total; room < len(b) {
		b, p.cut = b[:max(room, 0)], true
	}
	p.total += len(b)
	if n := len(p.pending); n > 0 && p.pending[n-1].stream == stream && len(p.pending[n-1].data)+len(b) <= outChunk {
		p.pending[n-1].data = append(p.pending[n-1].data, b...)
	} else if len(b) > 0 {
		p.pending = append(p.pending, outChunkBuf{stream: stream, data: append([]byte(nil), b...)})
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// close sends what is left and the end marker.
func (p *outputPublisher) close() {
	close(p.done)
	<-p.ended
}

func (p *outputPublisher) loop() {
	defer close(p.ended)
	tick := time.NewTicker(outInterval)
	defer tick.Stop()
	for {
		select {
		case <-p.done:
			p.flush(true)
			return
		case <-tick.C:
			p.flush(false)
		}
	}
}

func (p *outputPublisher) flush(last bool) {
	p.mu.Lock()
	chunks, cut := p.pending, p.cut
	p.pending = nil
	p.mu.Unlock()
	for i, ch := range chunks {
		for len(ch.data) > 0 {
			n := min(len(ch.data), outChunk)
			end := ""
			if last && i == len(chunks)-1 && n == len(ch.data) {
				end = map[bool]string{true: "cut", false: "1"}[cut]
			}
			p.send(ch.stream, ch.data[:n], end)
			ch.data = ch.data[n:]
		}
	}
	if last && len(chunks) == 0 {
		p.send("", nil, map[bool]string{true: "cut", false: "1"}[cut])
	}
}

func (p *outputPublisher) send(stream string, data []byte, end string) {
	p.seq++
	hdr := natsconn.Header{hdrSeq: {strconv.Itoa(p.seq)}}
	if stream != "" {
		hdr.Set(hdrStream, stream)
	}
	if end != "" {
		hdr.Set(hdrEnd, end)
	}
	// lost when the connection is: the outcome still carries the start
	_ = p.c.Publish(p.subject, "", hdr, data)
}

// OutputFollower receives one request's live output (Follow).
type OutputFollower struct {
	sub  *natsconn.Sub
	next int
	// Lost is set when a message was missed (a gap in the numbering).
	Lost  bool
	ended bool
}

// FollowOutput subscribes to r's live output; call it before deciding.
func FollowOutput(c *natsconn.Conn, r Request) (*OutputFollower, error) {
	sub, err := c.Subscribe(outputSubject(r.Org, r.Host, r.Project, r.ID), 4096)
	if err != nil {
		return nil, err
	}
	return &OutputFollower{sub: sub, next: 1}, nil
}

// Close ends the subscription.
func (o *OutputFollower) Close() { o.sub.Unsubscribe() }

// take hands one message's output to fn.
func (o *OutputFollower) take(m *natsconn.Msg, fn func(stream string, p []byte)) {
	seq, _ := strconv.Atoi(m.Header.Get(hdrSeq))
	if seq != o.next {
		o.Lost = true
	}
	o.next = seq + 1
	if s := m.Header.Get(hdrStream); (s == "stdout" || s == "stderr") && len(m.Data) > 0 && fn != nil {
		fn(s, m.Data)
	}
	o.ended = m.Header.Get(hdrEnd) != "" // "1", or "cut" past the relay's limit
}

// drain hands what has arrived to fn, waiting up to wait for the end
// marker.
func (o *OutputFollower) drain(ctx context.Context, wait time.Duration, fn func(string, []byte)) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for !o.ended {
		select {
		case m, ok := <-o.sub.C():
			if !ok {
				return
			}
			o.take(m, fn)
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
