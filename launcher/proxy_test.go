package launcher

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// startProxy serves a proxy with d on loopback for the test's lifetime.
func startProxy(t testing.TB, d NetDecider) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { NewProxy(d, nil).Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// connect sends CONNECT target and returns the status line, the body of
// a refusal, and the open connection.
func connect(t testing.TB, proxy, target string) (string, string, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	if resp.StatusCode != http.StatusOK {
		body, _ = io.ReadAll(resp.Body)
	}
	return resp.Status, string(body), c, br
}

func echoListener(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func TestProxyConnect(t *testing.T) {
	echo := echoListener(t)
	allow, _ := NewAllowList(echo, "localhost")
	proxy := startProxy(t, allow)
	tests := []struct {
		name, target, status, body string
	}{
		{"allowed tunnel", echo, "200 Connection established", ""},
		{"unlisted host", "127.0.0.1:1", "403 " + RefusedText, "127.0.0.1:1 is not on the allow list"},
		{"disguised loopback", "0x7f.0.0.1:" + echo[strings.LastIndexByte(echo, ':')+1:], "400 Bad Request", "bad IP literal"},
		{"bad port", "example.com:99999", "400 Bad Request", "bad port"},
		{"allowed name resolving to loopback", "localhost:" + echo[strings.LastIndexByte(echo, ':')+1:], "502 Bad Gateway", "loopback"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body, c, br := connect(t, proxy, tc.target)
			defer c.Close()
			if status != tc.status || !strings.Contains(body, tc.body) {
				t.Fatalf("got %q %q, want %q %q", status, body, tc.status, tc.body)
			}
			if tc.status[:3] == "200" {
				fmt.Fprintf(c, "ping\n")
				if line, err := br.ReadString('\n'); err != nil || line != "ping\n" {
					t.Errorf("echo through the tunnel: %q %v", line, err)
				}
			}
		})
	}
}

func TestProxyPlainHTTP(t *testing.T) {
	var gotHeader atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHeader.Store(r.Header.Get("Proxy-Authorization") + "|" + r.Header.Get("X-Keep"))
		io.WriteString(w, "hello "+r.URL.Path)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	allow, _ := NewAllowList(host)
	proxy := startProxy(t, allow)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(t, "http://"+proxy))}}
	req, _ := http.NewRequest("GET", srv.URL+"/a", nil)
	req.Header.Set("Proxy-Authorization", "secret")
	req.Header.Set("X-Keep", "kept")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello /a" || gotHeader.Load() != "|kept" {
		t.Fatalf("allowed: %d %q header %v", resp.StatusCode, body, gotHeader.Load())
	}
	resp, err = client.Get("http://127.0.0.1:1/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(body), "not on the allow list") {
		t.Fatalf("denied: %d %q", resp.StatusCode, body)
	}
}

// TestProxyWaitsForDecider: a decider that blocks (a human deciding)
// holds the tunnel, then lets it through; the proxy keeps serving others
// meanwhile.
func TestProxyWaitsForDecider(t *testing.T) {
	echo := echoListener(t)
	release := make(chan struct{})
	asked := make(chan string, 4)
	d := DeciderFunc(func(ctx context.Context, host string, port int) (bool, string) {
		asked <- fmt.Sprintf("%s:%d", host, port)
		if port == 1 {
			return false, "denied at once"
		}
		select {
		case <-release:
			return true, "approved"
		case <-ctx.Done():
			return false, "gave up"
		}
	})
	proxy := startProxy(t, d)
	done := make(chan string)
	go func() { status, _, c, _ := connect(t, proxy, echo); c.Close(); done <- status }()
	<-asked
	if status, body, c, _ := connect(t, proxy, "127.0.0.1:1"); status != "403 "+RefusedText || !strings.Contains(body, "denied at once") {
		t.Errorf("other request while waiting: %q %q", status, body)
	} else {
		c.Close()
	}
	select {
	case s := <-done:
		t.Fatalf("tunnel answered %q before the decision", s)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if s := <-done; s != "200 Connection established" {
		t.Fatalf("after approval: %q", s)
	}
}

func TestProxyDeniesWithoutDecider(t *testing.T) {
	proxy := startProxy(t, nil)
	status, body, c, _ := connect(t, proxy, "example.com:443")
	c.Close()
	if status != "403 "+RefusedText || !strings.Contains(body, "no network policy") {
		t.Fatalf("%q %q", status, body)
	}
}

// BenchmarkProxyConnect measures allowed CONNECT tunnels per second on
// loopback: dial the proxy, CONNECT, one echo round trip, close.
func BenchmarkProxyConnect(b *testing.B) {
	echo := echoListener(b)
	allow, _ := NewAllowList(echo)
	proxy := startProxy(b, allow)
	b.ReportAllocs()
	markCPU()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 5)
		for pb.Next() {
			_, _, c, br := connect(b, proxy, echo)
			io.WriteString(c, "ping\n")
			if _, err := io.ReadFull(br, buf); err != nil {
				b.Error(err)
			}
			c.Close()
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tunnels/s")
	reportCPU(b, b.N)
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
