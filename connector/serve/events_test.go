package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// liveHarness is a harness behind a real loopback listener.
func liveHarness(t *testing.T, n int) (*harness, string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ts := httptest.NewUnstartedServer(nil)
	h := newHarnessAt(t, n, ts.Listener.Addr().String())
	ts.Config.Handler = h.h
	ts.Start()
	t.Cleanup(ts.Close)
	return h, ts.URL
}

// dial connects to /api/events with the token offered as a subprotocol,
// as the page does.
func dial(t *testing.T, h *harness, base string, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	return dialWith(t, base, origin, []string{wsProtocol, wsTokenPrefix + h.token})
}

func dialWith(t *testing.T, base, origin string, protocols []string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	hdr := http.Header{}
	if origin != "" {
		hdr.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return websocket.Dial(ctx, "ws"+base[len("http"):]+"/api/events", &websocket.DialOptions{HTTPHeader: hdr, Subprotocols: protocols})
}

// next reads events until one of type typ arrives (bounded).
func next(t *testing.T, c *websocket.Conn, typ string) Event {
	t.Helper()
	return nextOf(t, c, typ)
}

// nextOf reads events until one of the types in typs arrives.
func nextOf(t *testing.T, c *websocket.Conn, typs ...string) Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %v: %v", typs, err)
		}
		var ev Event
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(typs, ev.Type) {
			return ev
		}
	}
}

func TestEventsFollowARequestFromArrivalToOutput(t *testing.T) {
	h, base := liveHarness(t, 1)
	c, _, err := dial(t, h, base, base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	hello := next(t, c, EventHello)
	if hello.Status == nil || hello.Status.Folders != 1 {
		t.Fatalf("hello %+v", hello)
	}
	req := h.projects[0].submit(t, "echo one; sleep 0.3; echo two")
	ev := next(t, c, EventPending)
	if ev.ID != req.ID || ev.Request == nil || ev.Request.Hash != req.Hash {
		t.Fatalf("pending event %+v", ev)
	}
	go func() {
		r, _ := http.NewRequest("POST", base+"/api/requests/"+req.ID+"/approve", strings.NewReader(hashBody(req)))
		r.Header.Set("Authorization", "Bearer "+h.token)
		r.Header.Set("Origin", base)
		if resp, err := http.DefaultClient.Do(r); err == nil {
			resp.Body.Close()
		}
	}()
	if ev := next(t, c, EventClaimed); ev.ID != req.ID {
		t.Fatalf("claimed %+v", ev)
	}
	// Output, the result and the audit appends arrive in that order per
	// stream, but the audit follower is a stream of its own: its records
	// may come before or after the done event.
	var (
		out     string
		done    *Event
		audited bool
	)
	for out != "one\ntwo\n" || done == nil || !audited {
		ev := nextOf(t, c, EventOutput, EventDone, EventAudit)
		switch ev.Type {
		case EventOutput:
			out += ev.Text
			if len(out) > 100 {
				t.Fatalf("output %q", out)
			}
		case EventDone:
			done = &ev
		case EventAudit:
			if ev.Record == nil || ev.Record.Seq == 0 {
				t.Fatalf("audit %+v", ev)
			}
			audited = true
		}
	}
	if done.Result == nil || done.Result.Decision != "approved" {
		t.Fatalf("done %+v", done)
	}
}

func TestEventsRefuseAForeignOriginAndNoToken(t *testing.T) {
	h, base := liveHarness(t, 1)
	if _, resp, err := dial(t, h, base, "http://evil.example"); err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("foreign origin: %v %v", resp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+base[len("http"):]+"/api/events", nil)
	if err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("no token: %v %v", resp, err)
	}
}

func TestHubDropsSlowClientsWithoutBlocking(t *testing.T) {
	hb := newHub(testLogger(t))
	slow, fast := hb.join(), hb.join()
	done := make(chan struct{})
	go func() {
		for range clientBuffer + 10 {
			hb.publish(Event{Type: EventOutput, Text: "x"})
			<-fast.send
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("publish blocked on a slow client")
	}
	select {
	case <-slow.gone:
	default:
		t.Fatal("the slow client was not dropped")
	}
	if hb.count() != 1 {
		t.Fatalf("%d clients, want 1", hb.count())
	}
	hb.close()
	if hb.join() != nil {
		t.Fatal("joined a closed hub")
	}
}

// The page's own credential (a token traded for a one-time code) opens
// the WebSocket as a subprotocol; the token as a cookie does not.
func TestEventsTakeThePageTokenNotACookie(t *testing.T) {
	h, base := liveHarness(t, 1)
	code, _ := h.srv.NewCode()
	r, _ := http.NewRequest("POST", base+"/api/session", strings.NewReader(`{"code":"`+code+`"}`))
	resp, err := http.DefaultClient.Do(r)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("exchange: %v %v", resp, err)
	}
	var got struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	c, resp, err := dialWith(t, base, base, []string{wsProtocol, wsTokenPrefix + got.Token})
	if err != nil {
		t.Fatalf("page token: %v %v", resp, err)
	}
	if c.Subprotocol() != wsProtocol {
		t.Fatalf("subprotocol %q, want %q (the token is never echoed)", c.Subprotocol(), wsProtocol)
	}
	next(t, c, EventHello)
	c.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hdr := http.Header{"Cookie": {"sandbox_token_1=" + h.token}}
	if _, resp, err := websocket.Dial(ctx, "ws"+base[len("http"):]+"/api/events", &websocket.DialOptions{HTTPHeader: hdr}); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("cookie: %v %v", resp, err)
	}
}

// A WebSocket client that stops answering pings is dropped.
func TestEventsDropAClientThatStopsAnsweringPings(t *testing.T) {
	pingOverride.Store(int64(100 * time.Millisecond))
	t.Cleanup(func() { pingOverride.Store(0) })
	h, base := liveHarness(t, 1)
	c, _, err := dial(t, h, base, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	// This client never reads again, so it never answers a ping.
	for deadline := time.Now().Add(20 * time.Second); h.srv.hub.count() != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a client that answers no ping stayed connected")
		}
	}
}
