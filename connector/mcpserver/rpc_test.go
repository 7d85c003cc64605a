package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// rawConn talks raw JSON-RPC lines to a server in this process.
type rawConn struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
}

func (fx *fixture) raw() *rawConn {
	fx.t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- fx.srv.Serve(context.Background(), sr, sw)
		sw.Close()
	}()
	fx.t.Cleanup(func() { cw.Close(); <-done })
	return &rawConn{t: fx.t.(*testing.T), in: cw, out: bufio.NewReader(cr)}
}

func (r *rawConn) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// next reads the next message, failing after 30s.
func (r *rawConn) next() map[string]any {
	r.t.Helper()
	ch := make(chan string, 1)
	go func() {
		line, _ := r.out.ReadString('\n')
		ch <- line
	}()
	select {
	case line := <-ch:
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			r.t.Fatalf("bad message %q: %v", line, err)
		}
		return m
	case <-time.After(30 * time.Second):
		r.t.Fatal("no message")
	}
	return nil
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestJSONRPCErrors(t *testing.T) {
	r := newFixture(t).raw()
	tests := []struct {
		line string
		code float64
	}{
		{`{not json`, codeParseError},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, codeMethodNotFound},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"x"}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sudo"}}`, codeInvalidParams},
	}
	for _, tc := range tests {
		r.send(tc.line)
		if m := r.next(); errCode(m) != tc.code {
			t.Errorf("%s: %v, want code %v", tc.line, m, tc.code)
		}
	}
	// Notifications and responses get no answer; the next request does.
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	r.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := r.next(); m["id"] != "p" || m["result"] == nil {
		t.Errorf("ping: %v", m)
	}
}

func TestInitializeNegotiatesTheVersion(t *testing.T) {
	r := newFixture(t).raw()
	for _, tc := range []struct{ asked, want string }{
		{"2025-06-18", "2025-06-18"}, {"2024-11-05", "2024-11-05"}, {"2099-01-01", "2025-11-25"},
	} {
		r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.asked + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		res, _ := r.next()["result"].(map[string]any)
		if res["protocolVersion"] != tc.want || !strings.Contains(res["instructions"].(string), "run_privileged") {
			t.Errorf("asked %s: %v", tc.asked, res)
		}
	}
}

func TestCancelledCallGetsNoAnswer(t *testing.T) {
	fx := newFixture(t)
	r := fx.raw()
	r.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_privileged","arguments":{"command":"chown --reference=x x","reason":"r","wait_seconds":600}}}`)
	testenv.WaitFor(t, "the request", func() bool { p, _ := fx.q.Pending(); return len(p) == 1 })
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
	r.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if m := r.next(); m["id"] != float64(8) {
		t.Errorf("after the cancel: %v (the cancelled call must not be answered)", m)
	}
	if p, _ := fx.q.Pending(); len(p) != 1 {
		t.Errorf("the request must stay pending: %v", p)
	}
}
