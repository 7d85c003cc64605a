package launcher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proxy is the supervisor's egress proxy: HTTP CONNECT tunnels and
// plain-HTTP forwarding, each destination decided by a NetDecider. It runs
// outside the jail; the jail can reach nothing else.
type Proxy struct {
	decider NetDecider
	log     *slog.Logger
	dialer  net.Dialer
	client  *http.Transport

	// IdleTimeout bounds the wait for a client's next request line.
	IdleTimeout time.Duration
}

// NewProxy returns a proxy asking d (nil: deny everything) about every
// destination.
func NewProxy(d NetDecider, log *slog.Logger) *Proxy {
	if d == nil {
		d = denyAll
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Proxy{decider: d, log: log, IdleTimeout: 2 * time.Minute}
	p.dialer = net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	p.client = &http.Transport{
		Proxy:               nil, // never chain through the supervisor's own proxy variables
		DialContext:         p.dialGuarded,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
	}
	return p
}

// Serve accepts connections on ln until ctx ends or ln is closed; it
// closes ln and waits for the open connections to finish.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { <-ctx.Done(); ln.Close() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("proxy accept: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.serveConn(ctx, c)
		}()
	}
}

// serveConn reads requests until the client leaves, a tunnel takes the
// connection over, or the run ends.
func (p *Proxy) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(p.IdleTimeout))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Time{})
		if req.Method == http.MethodConnect {
			p.tunnel(ctx, c, br, req)
			return
		}
		if !p.forward(ctx, c, req) {
			return
		}
	}
}

// decide normalises and asks the decider; on refusal it answers the
// client and returns false.
func (p *Proxy) decide(ctx context.Context, c net.Conn, hostport string, defPort int) (Target, bool) {
	t, err := ParseTarget(hostport, defPort)
	if err != nil {
		p.log.Info("proxy refused", "target", hostport, "err", err)
		writeStatus(c, http.StatusBadRequest, err.Error())
		return Target{}, false
	}
	allow, reason := p.decider.Decide(ctx, t.Host, t.Port)
	p.log.Info("proxy decision", "target", t.Addr(), "allow", allow, "reason", reason)
	if !allow {
		writeRefusal(c, t.Addr(), reason)
		return Target{}, false
	}
	return t, true
}

// dialGuarded dials a decided destination; a name that resolves to a
// loopback, link-local or metadata address is refused (DNS rebinding), an
// IP literal the decider allowed is not.
func (p *Proxy) dialGuarded(ctx context.Context, network, addr string) (net.Conn, error) {
	d := p.dialer
	host, _, _ := net.SplitHostPort(addr)
	if _, err := netip.ParseAddr(host); err != nil {
		d.Control = refuseSpecial
	}
	return d.DialContext(ctx, network, addr)
}

// refuseSpecial also refuses this machine's own interface addresses: a
// name resolving to the host's LAN address reaches a service listening
// on every address as surely as 127.0.0.1 does.
func refuseSpecial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || IsSpecial(ap.Addr()) || isOwnAddress(ap.Addr().Unmap()) {
		return fmt.Errorf("%w: %s", ErrSpecialAddress, address)
	}
	return nil
}

// writeStatus answers with a short plain-text body and closes the
// exchange.
func writeStatus(c net.Conn, code int, body string) {
	writeAnswer(c, code, http.StatusText(code), nil, body)
}

func writeAnswer(c net.Conn, code int, text string, header []string, body string) {
	body += "\n"
	var h strings.Builder
	for _, l := range header {
		h.WriteString(l + "\r\n")
	}
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n%s"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", code, text, h.String(), len(body), body)
}
