package serve

import (
	"encoding/json"
	"log/slog"
	"sync"
)

// clientBuffer is how many messages a WebSocket client may fall behind
// before it is dropped (it reconnects and reloads).
const clientBuffer = 256

// maxClients bounds the WebSocket clients connected at once.
const maxClients = 1000

// hub fans events out to the WebSocket clients. Publishing never blocks:
// a client whose buffer is full is dropped.
type hub struct {
	log *slog.Logger

	mu sync.Mutex
	// clients and closed are guarded by mu.
	clients map[*client]struct{}
	closed  bool
}

// client is one WebSocket connection's queue of encoded messages; gone
// is closed when the hub drops it.
type client struct {
	send chan []byte
	gone chan struct{}
	once sync.Once
}

func (c *client) drop() { c.once.Do(func() { close(c.gone) }) }

func newHub(log *slog.Logger) *hub {
	return &hub{log: log, clients: map[*client]struct{}{}}
}

// join adds a client; nil when the hub is closed or full.
func (h *hub) join() *client {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.clients) >= maxClients {
		return nil
	}
	c := &client{send: make(chan []byte, clientBuffer), gone: make(chan struct{})}
	h.clients[c] = struct{}{}
	return c
}

func (h *hub) leave(c *client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
	c.drop()
}

// publish sends every event to every client.
func (h *hub) publish(evs ...Event) {
	for _, ev := range evs {
		b, err := json.Marshal(ev)
		if err != nil {
			h.log.Error("bug: cannot encode an event", "type", ev.Type, "err", err)
			continue
		}
		h.broadcast(b)
	}
}

func (h *hub) broadcast(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		select {
		case c.send <- b:
		default:
			delete(h.clients, c)
			c.drop()
			h.log.Warn("dropped a slow WebSocket client")
		}
	}
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		delete(h.clients, c)
		c.drop()
	}
}
