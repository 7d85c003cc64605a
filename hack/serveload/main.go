// Command serveload measures `sandbox serve` under the load the dashboard
// issue names: many pending requests across many folders and many
// connected WebSocket clients. It talks to loopback only, and every loop
// is bounded in count and time.
//
//	serveload -sandbox ./sandbox [-folders 10] [-per 100] [-clients 100] [-n 200]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

type options struct {
	sandbox               string
	folders, per, clients int
	n                     int
	timeout               time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.sandbox, "sandbox", "sandbox", "the sandbox binary")
	flag.IntVar(&o.folders, "folders", 10, "project folders")
	flag.IntVar(&o.per, "per", 100, "pending requests per folder (at most 100)")
	flag.IntVar(&o.clients, "clients", 100, "WebSocket clients")
	flag.IntVar(&o.n, "n", 200, "timed GET /api/requests?state=pending")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "bound on the whole run")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	tmp, err := os.MkdirTemp("", "serveload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	os.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	dirs, err := fill(ctx, tmp, o)
	if err != nil {
		return err
	}
	t0 := time.Now()
	srv, err := start(o.sandbox, dirs)
	if err != nil {
		return err
	}
	defer srv.stop()
	c := &client{base: srv.base, token: srv.token, hc: &http.Client{Timeout: 30 * time.Second}}
	if err := c.waitPending(ctx, o.folders*o.per); err != nil {
		return err
	}
	loaded := time.Since(t0)
	conns, err := c.connect(ctx, o.clients)
	if err != nil {
		return err
	}
	defer func() {
		for _, ws := range conns {
			ws.CloseNow()
		}
	}()
	lat, size, err := c.time(ctx, o.n, o.folders*o.per)
	if err != nil {
		return err
	}
	rss, hwm := memory(srv.cmd.Process.Pid)
	report(o, loaded, lat, size, rss, hwm)
	return nil
}

// fill makes the folders and queues the pending requests.
func fill(ctx context.Context, tmp string, o options) ([]string, error) {
	var dirs []string
	for i := range o.folders {
		dir := filepath.Join(tmp, "project-"+strconv.Itoa(i))
		if err := os.MkdirAll(filepath.Join(dir, ".sandbox"), 0o755); err != nil {
			return nil, err
		}
		f, err := folder.New(dir)
		if err != nil {
			return nil, err
		}
		q, err := queue.Open(f)
		if err != nil {
			return nil, err
		}
		for j := range o.per {
			req := &queue.Request{Kind: queue.KindShell, Cwd: f.Root, Source: queue.SourceClaudeHook,
				Shell: &queue.ShellPayload{Shell: "bash", Script: fmt.Sprintf("make deploy TARGET=host-%d-%d && git push origin release-%d", i, j, j)},
				Agent: "claude", Session: fmt.Sprintf("session-%d", i), Justification: "ship the release",
				PolicyReasons: []string{"shell make: no rule allows this; anything unknown needs a human"}}
			if _, _, err := q.Submit(ctx, req); err != nil {
				return nil, err
			}
		}
		q.Close()
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

type server struct {
	cmd         *exec.Cmd
	base, token string
}

// start runs `sandbox serve DIR...` and reads the address it prints.
func start(bin string, dirs []string) (*server, error) {
	cmd := exec.Command(bin, append([]string{"serve"}, dirs...)...)
	cmd.Stderr = &warnings{}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(l)
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		base, code, ok := strings.Cut(l, "/#code=")
		if !ok {
			cmd.Process.Kill()
			return nil, fmt.Errorf("unexpected first line %q", l)
		}
		token, err := signIn(base, code)
		if err != nil {
			cmd.Process.Kill()
			return nil, err
		}
		return &server{cmd: cmd, base: base, token: token}, nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("sandbox serve printed no address")
	}
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	t := time.AfterFunc(30*time.Second, func() { s.cmd.Process.Kill() })
	defer t.Stop()
	s.cmd.Wait()
}

// warnings passes on the server's stderr except its banner.
type warnings struct{}

func (warnings) Write(p []byte) (int, error) {
	if !strings.HasPrefix(string(p), "sandbox serve: ") {
		os.Stderr.Write(p)
	}
	return len(p), nil
}

type client struct {
	base, token string
	hc          *http.Client
}

func (c *client) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return b, err
}

// waitPending waits (bounded by ctx) until the server lists n requests.
func (c *client) waitPending(ctx context.Context, n int) error {
	for {
		b, err := c.get(ctx, "/api/status")
		if err != nil {
			return err
		}
		var st struct{ Pending int }
		if json.Unmarshal(b, &st) == nil && st.Pending == n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the server lists %d pending requests, want %d: %w", st.Pending, n, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// connect opens n WebSocket clients that read (and drop) every event.
func (c *client) connect(ctx context.Context, n int) ([]*websocket.Conn, error) {
	var conns []*websocket.Conn
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.token)
	for range n {
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.base, "http")+"/api/events",
			&websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			return conns, err
		}
		conns = append(conns, ws)
		go func() {
			for {
				if _, _, err := ws.Read(ctx); err != nil {
					return
				}
			}
		}()
	}
	return conns, nil
}

// time measures n sequential listings, checking each is complete.
func (c *client) time(ctx context.Context, n, want int) ([]time.Duration, int, error) {
	var lat []time.Duration
	size := 0
	for i := range n + 5 {
		t0 := time.Now()
		b, err := c.get(ctx, "/api/requests?state=pending")
		d := time.Since(t0)
		if err != nil {
			return nil, 0, err
		}
		var list struct{ Requests []json.RawMessage }
		if err := json.Unmarshal(b, &list); err != nil || len(list.Requests) != want {
			return nil, 0, fmt.Errorf("listing %d requests, want %d (%v)", len(list.Requests), want, err)
		}
		if i >= 5 { // the first few warm up
			lat = append(lat, d)
		}
		size = len(b)
	}
	slices.Sort(lat)
	return lat, size, nil
}

// memory reads the server's resident set size and its peak, in bytes.
func memory(pid int) (rss, hwm int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1, -1
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			hwm = kb << 10
		}
	}
	return rss, hwm
}

func report(o options, loaded time.Duration, lat []time.Duration, size int, rss, hwm int64) {
	mb := func(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Printf("setup: %d pending requests in %d folders, %d WebSocket clients; the server listed them all %s after it was started\n",
		o.folders*o.per, o.folders, o.clients, loaded.Round(time.Millisecond))
	fmt.Printf("RSS: %s (peak %s)   target <= 60 MB   %s\n", mb(rss), mb(hwm), verdict(rss <= 60e6 && hwm <= 60e6))
	fmt.Printf("GET /api/requests?state=pending (%d KB): median %s, p90 %s, max %s over %d   target median <= 20 ms   %s\n",
		size>>10, ms(q(0.5)), ms(q(0.9)), ms(lat[len(lat)-1]), len(lat), verdict(q(0.5) <= 20*time.Millisecond))
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// signIn trades the one-time code for a page token, as the page does.
func signIn(base, code string) (string, error) {
	resp, err := http.Post(base+"/api/session", "application/json", strings.NewReader(`{"code":"`+code+`"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var got struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != 200 {
		return "", fmt.Errorf("sign-in: %s %v", resp.Status, err)
	}
	return got.Token, nil
}
