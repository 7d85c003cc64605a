package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// writeTimeout bounds one WebSocket write: a client that does not read
// is dropped.
const writeTimeout = 10 * time.Second

// pingEvery is how often a WebSocket is pinged; a client that does not
// answer before the next ping is due is dropped, so a connection whose peer
// vanished (or never reads) does not stay open forever.
const pingEvery = 30 * time.Second

// pingOverride, when positive, replaces pingEvery (tests). Atomic: a
// handler of an earlier test may still read it while a later test sets it.
var pingOverride atomic.Int64

func pingInterval() time.Duration {
	if d := pingOverride.Load(); d > 0 {
		return time.Duration(d)
	}
	return pingEvery
}

// handleEvents is the WebSocket /api/events: a hello with the status,
// then every event as one JSON text message. The guard has checked the
// token and the Origin; clients only listen (a message from one closes
// it). A client that falls behind is dropped.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	c := s.hub.join()
	if c == nil {
		writeError(w, http.StatusServiceUnavailable, "unavailable", "too many clients")
		return
	}
	defer s.hub.leave(c)
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{wsProtocol}})
	if err != nil {
		return
	}
	defer conn.CloseNow()
	ctx := conn.CloseRead(r.Context())
	hello, _ := json.Marshal(Event{Type: EventHello, Status: s.status()})
	if send(ctx, conn, hello) != nil {
		return
	}
	ping := time.NewTicker(pingInterval())
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			if pingOnce(ctx, conn) != nil {
				return
			}
		case <-c.gone:
			conn.Close(websocket.StatusTryAgainLater, "fell behind or server stopping; reconnect")
			return
		case b := <-c.send:
			if send(ctx, conn, b) != nil {
				return
			}
		}
	}
}

func pingOnce(ctx context.Context, conn *websocket.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, pingInterval())
	defer cancel()
	return conn.Ping(ctx)
}

func send(ctx context.Context, conn *websocket.Conn, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return conn.Write(ctx, websocket.MessageText, b)
}
