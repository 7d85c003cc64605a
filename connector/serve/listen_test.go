package serve

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// liveServer serves h's handler through HTTPServer and LimitListener with
// lim, on a loopback port; it returns the address.
func liveServer(t *testing.T, lim Limits) (*harness, string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessAt(t, 1, ln.Addr().String())
	hs := h.srv.HTTPServer(nil, lim)
	go hs.Serve(LimitListener(ln, lim.MaxConns))
	t.Cleanup(func() { hs.Close() })
	return h, ln.Addr().String()
}

// closedBy reports whether the server closes c (bounded wait).
func closedBy(t *testing.T, c net.Conn, within time.Duration) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(within))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout()) && !errors.Is(err, os.ErrDeadlineExceeded)
}

// A client that never finishes its headers (slowloris) is disconnected
// after the header timeout, without any credential being asked.
func TestSlowHeadersAreCutOff(t *testing.T) {
	_, addr := liveServer(t, Limits{ReadHeader: 300 * time.Millisecond, Read: time.Second, Idle: time.Second, MaxConns: 8})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /api/status HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: ")
	if !closedBy(t, c, 20*time.Second) {
		t.Fatal("a connection that never finished its headers was kept open")
	}
}

// At most MaxConns connections are served at once: one more waits until
// one of them closes.
func TestConnectionCapHolds(t *testing.T) {
	h, addr := liveServer(t, Limits{ReadHeader: time.Minute, Read: time.Minute, Idle: time.Minute, MaxConns: 3})
	var held []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET /api/status HTTP/1.1\r\n") // never finished
		held = append(held, c)
	}
	extra, err := net.Dial("tcp", addr) // the kernel accepts it; the server does not serve it
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	get := "GET /api/status HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + h.token + "\r\n\r\n"
	io.WriteString(extra, get)
	extra.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := bufio.NewReader(extra).ReadString('\n'); err == nil {
		t.Fatal("a fourth connection was served while three were open")
	}
	held[0].Close()
	extra.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(extra), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after one closed: %v %v", resp, err)
	}
	for _, c := range held[1:] {
		c.Close()
	}
}

// A client that sends its headers but never the body it announced is
// disconnected after the read timeout: no route, not even the sign-in one
// that needs no token, waits on it forever.
func TestSlowBodiesAreCutOff(t *testing.T) {
	_, addr := liveServer(t, Limits{ReadHeader: time.Second, Read: 500 * time.Millisecond, Idle: time.Second, MaxConns: 8})
	for _, path := range []string{"/api/session", "/api/requests/01abc/approve"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"code\":")
		if !closedBy(t, c, 20*time.Second) {
			t.Fatalf("%s: a connection that never sent its body was kept open", path)
		}
		c.Close()
	}
}
